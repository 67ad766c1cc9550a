/**
 * The long options of the programs whose option parser accepts any unique prefix of a long option
 * (GNU getopt_long, argp, git's parse-options), as the real programs list them (`--help`,
 * `git CMD --git-completion-helper-all`). A prefix is judged against all of them, not only those
 * option-specs.ts gives meaning to. A trailing `=` marks an option whose value may be the next word.
 * Complete unless the program is in PARTIAL_LONG_OPTIONS.
 */

export const LONG_OPTIONS: Readonly<Record<string, string>> = {
  'rm':
    'dir force help interactive no-preserve-root one-file-system preserve-root recursive verbose version',
  'cp':
    'archive attributes-only backup context copy-contents dereference force help interactive link ' +
    'no-clobber no-dereference no-preserve= no-target-directory one-file-system parents preserve ' +
    'recursive reflink remove-destination sparse= strip-trailing-slashes suffix= symbolic-link ' +
    'target-directory= update verbose version',
  'mv':
    'backup context force help interactive no-clobber no-target-directory strip-trailing-slashes suffix= ' +
    'target-directory= update verbose version',
  'chmod':
    'changes help no-preserve-root preserve-root quiet recursive reference= silent verbose version',
  'chown':
    'changes dereference from= help no-dereference no-preserve-root preserve-root quiet recursive ' +
    'reference= silent verbose version',
  'chgrp':
    'changes dereference help no-dereference no-preserve-root preserve-root quiet recursive reference= ' +
    'silent verbose version',
  'grep':
    'after-context= basic-regexp before-context= binary binary-files= byte-offset color colour context= ' +
    'count dereference-recursive devices= directories= exclude= exclude-dir= exclude-from= ' +
    'extended-regexp file= files-with-matches files-without-match fixed-strings group-separator= help ' +
    'ignore-case include= initial-tab invert-match label= line-buffered line-number line-regexp ' +
    'max-count= no-filename no-group-separator no-ignore-case no-messages null null-data only-matching ' +
    'perl-regexp quiet recursive regexp= silent text version with-filename word-regexp',
  'head':
    'bytes= help lines= quiet silent verbose version zero-terminated',
  'tail':
    'bytes= follow help lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose ' +
    'version zero-terminated',
  'sed':
    'debug expression= file= follow-symlinks help in-place line-length= null-data posix quiet ' +
    'regexp-extended sandbox separate silent unbuffered version',
  'sort':
    'batch-size= buffer-size= check compress-program= debug dictionary-order field-separator= ' +
    'files0-from= general-numeric-sort help human-numeric-sort ignore-case ignore-leading-blanks ' +
    'ignore-nonprinting key= merge month-sort numeric-sort output= parallel= random-sort random-source= ' +
    'reverse sort= stable temporary-directory= unique version version-sort zero-terminated',
  'tar':
    'absolute-names acls add-file= after-date= anchored append atime-preserve auto-compress backup ' +
    'block-number blocking-factor= bzip2 catenate check-device check-links checkpoint checkpoint-action= ' +
    'clamp-mtime compare compress concatenate confirmation create delay-directory-restore delete ' +
    'dereference diff directory= exclude= exclude-backups exclude-caches exclude-caches-all ' +
    'exclude-caches-under exclude-from= exclude-ignore= exclude-ignore-recursive= exclude-tag= ' +
    'exclude-tag-all= exclude-tag-under= exclude-vcs exclude-vcs-ignores extract file= files-from= ' +
    'force-local format= full-time get group= group-map= gunzip gzip hard-dereference help ' +
    'hole-detection= ignore-case ignore-command-error ignore-failed-read ignore-zeros incremental ' +
    'index-file= info-script= interactive keep-directory-symlink keep-newer-files keep-old-files label= ' +
    'level= list listed-incremental= lzip lzma lzop mode= mtime= multi-volume new-volume-script= newer= ' +
    'newer-mtime= no-acls no-anchored no-auto-compress no-check-device no-delay-directory-restore ' +
    'no-ignore-case no-ignore-command-error no-null no-overwrite-dir no-quote-chars= no-recursion ' +
    'no-same-owner no-same-permissions no-seek no-selinux no-unquote no-verbatim-files-from no-wildcards ' +
    'no-wildcards-match-slash no-xattrs null numeric-owner occurrence old-archive one-file-system ' +
    'one-top-level overwrite overwrite-dir owner= owner-map= pax-option= portability posix preserve-order ' +
    'preserve-permissions quote-chars= quoting-style= read-full-records record-size= recursion ' +
    'recursive-unlink remove-files restrict rmt-command= rsh-command= same-order same-owner ' +
    'same-permissions seek selinux show-defaults show-omitted-dirs show-snapshot-field-ranges ' +
    'show-stored-names show-transformed-names skip-old-files sort= sparse sparse-version= starting-file= ' +
    'strip-components= suffix= tape-length= test-label to-command= to-stdout totals touch transform= ' +
    'uncompress ungzip unlink-first unquote update usage use-compress-program= utc verbatim-files-from ' +
    'verbose verify version volno-file= warning= wildcards wildcards-match-slash xattrs xattrs-exclude= ' +
    'xattrs-include= xform= xz zstd',
  'wget':
    'accept= accept-regex= adjust-extension append-output= ask-password auth-no-challenge background ' +
    'backup-converted backups= base= bind-address= body-data= body-file= ca-certificate= ca-directory= ' +
    'certificate= certificate-type= ciphers= compression= config= connect-timeout= content-disposition ' +
    'content-on-error continue convert-file-only convert-links crl-file= cut-dirs= debug default-page= ' +
    'delete-after directory-prefix= dns-timeout= domains= exclude-directories= exclude-domains= execute= ' +
    'follow-ftp follow-tags= force-directories force-html ftp-password= ftp-user= ' +
    'ftps-clear-data-connection ftps-fallback-to-ftp ftps-implicit ftps-resume-ssl header= help hsts-file ' +
    'http-password= http-user= https-only ignore-case ignore-length ignore-tags= include-directories= ' +
    'inet4-only inet6-only input-file= keep-session-cookies level= limit-rate= load-cookies= ' +
    'local-encoding= max-redirect method= mirror no-cache no-check-certificate no-clobber no-config ' +
    'no-cookies no-directories no-dns-cache no-glob no-host-directories no-hsts no-http-keep-alive ' +
    'no-if-modified-since no-iri no-netrc no-parent no-passive-ftp no-proxy no-remove-listing ' +
    'no-use-server-timestamps no-verbose no-warc-compression no-warc-digests no-warc-keep-log ' +
    'output-document= output-file= page-requisites password= pinnedpubkey= post-data= post-file= ' +
    'prefer-family= preserve-permissions private-key= private-key-type= progress= protocol-directories ' +
    'proxy-password= proxy-user= quiet quota= random-wait read-timeout= recursive referer= regex-type= ' +
    'reject= reject-regex= rejected-log= relative remote-encoding= report-speed= restrict-file-names= ' +
    'retr-symlinks retry-connrefused retry-on-http-error= save-cookies= save-headers secure-protocol= ' +
    'server-response show-progress span-hosts spider start-pos= strict-comments timeout= timestamping ' +
    'tries= trust-server-names unlink use-askpass= user= user-agent= verbose version wait= waitretry= ' +
    'warc-cdx warc-dedup= warc-file= warc-header= warc-max-size= warc-tempdir= xattr',
  'git push':
    'all atomic delete dry-run exec= follow-tags force force-if-includes force-with-lease ipv4 ipv6 ' +
    'mirror no-all no-atomic no-delete no-dry-run no-exec no-follow-tags no-force no-force-if-includes ' +
    'no-force-with-lease no-ipv4 no-ipv6 no-mirror no-porcelain no-progress no-prune no-push-option ' +
    'no-quiet no-receive-pack no-recurse-submodules no-repo no-set-upstream no-signed no-tags no-thin ' +
    'no-verbose no-verify porcelain progress prune push-option= quiet receive-pack= recurse-submodules= ' +
    'repo= set-upstream signed tags thin verbose verify',
  'git reset':
    'hard intent-to-add keep merge mixed no-hard no-intent-to-add no-keep no-merge no-mixed no-patch ' +
    'no-pathspec-file-nul no-pathspec-from-file no-quiet no-recurse-submodules no-refresh no-soft patch ' +
    'pathspec-file-nul pathspec-from-file= quiet recurse-submodules refresh soft',
  'git clean':
    'dry-run exclude= force interactive no-dry-run no-force no-interactive no-quiet quiet',
  'git checkout':
    'conflict= detach force guess ignore-other-worktrees ignore-skip-worktree-bits merge no-conflict ' +
    'no-detach no-force no-guess no-ignore-other-worktrees no-ignore-skip-worktree-bits no-merge ' +
    'no-orphan no-overlay no-overwrite-ignore no-patch no-pathspec-file-nul no-pathspec-from-file ' +
    'no-progress no-quiet no-recurse-submodules no-track orphan= ours overlay overwrite-ignore patch ' +
    'pathspec-file-nul pathspec-from-file= progress quiet recurse-submodules theirs track',
  'git switch':
    'conflict= create= detach discard-changes force force-create= guess ignore-other-worktrees merge ' +
    'no-conflict no-create no-detach no-discard-changes no-force no-force-create no-guess ' +
    'no-ignore-other-worktrees no-merge no-orphan no-overwrite-ignore no-progress no-quiet ' +
    'no-recurse-submodules no-track orphan= overwrite-ignore progress quiet recurse-submodules track',
  'git restore':
    'conflict= ignore-skip-worktree-bits ignore-unmerged merge no-conflict no-ignore-skip-worktree-bits ' +
    'no-ignore-unmerged no-merge no-overlay no-patch no-pathspec-file-nul no-pathspec-from-file ' +
    'no-progress no-quiet no-recurse-submodules no-source no-staged no-worktree ours overlay patch ' +
    'pathspec-file-nul pathspec-from-file= progress quiet recurse-submodules source= staged theirs ' +
    'worktree',
  'git branch':
    'abbrev all color column contains copy create-reflog delete edit-description force format= ' +
    'ignore-case list merged move no-abbrev no-all no-color no-column no-contains no-copy ' +
    'no-create-reflog no-delete no-edit-description no-force no-format no-ignore-case no-list no-merged ' +
    'no-move no-points-at no-quiet no-recurse-submodules no-remotes no-set-upstream no-set-upstream-to ' +
    'no-show-current no-sort no-track no-unset-upstream no-verbose points-at= quiet recurse-submodules ' +
    'remotes set-upstream set-upstream-to= show-current sort= track unset-upstream verbose with without',
  'git commit':
    'ahead-behind all allow-empty allow-empty-message amend author= branch cleanup= date= dry-run edit ' +
    'file= fixup= gpg-sign include interactive long message= no-ahead-behind no-all no-allow-empty ' +
    'no-allow-empty-message no-amend no-author no-branch no-cleanup no-date no-dry-run no-edit no-file ' +
    'no-fixup no-gpg-sign no-include no-interactive no-long no-message no-null no-only no-patch ' +
    'no-pathspec-file-nul no-pathspec-from-file no-porcelain no-post-rewrite no-quiet no-reedit-message ' +
    'no-reset-author no-reuse-message no-short no-signoff no-squash no-status no-template ' +
    'no-untracked-files no-verbose no-verify null only patch pathspec-file-nul pathspec-from-file= ' +
    'porcelain post-rewrite quiet reedit-message= reset-author reuse-message= short signoff squash= ' +
    'status template= trailer= untracked-files verbose verify',
  'git rm':
    'cached dry-run force ignore-unmatch no-cached no-dry-run no-force no-ignore-unmatch ' +
    'no-pathspec-file-nul no-pathspec-from-file no-quiet no-sparse pathspec-file-nul pathspec-from-file= ' +
    'quiet sparse',
  'git rebase':
    'abort allow-empty-message apply autosquash autostash committer-date-is-author-date continue ' +
    'edit-todo empty= exec= ff force-rebase fork-point gpg-sign ignore-date ignore-whitespace interactive ' +
    'keep-base keep-empty merge no-allow-empty-message no-autosquash no-autostash ' +
    'no-committer-date-is-author-date no-exec no-ff no-force-rebase no-fork-point no-gpg-sign ' +
    'no-ignore-date no-ignore-whitespace no-keep-base no-keep-empty no-onto no-preserve-merges no-quiet ' +
    'no-reapply-cherry-picks no-rebase-merges no-rerere-autoupdate no-reschedule-failed-exec ' +
    'no-reset-author-date no-root no-signoff no-stat no-strategy no-strategy-option no-update-refs ' +
    'no-verbose no-verify no-whitespace onto= preserve-merges quiet quit reapply-cherry-picks ' +
    'rebase-merges rerere-autoupdate reschedule-failed-exec reset-author-date root show-current-patch ' +
    'signoff skip stat strategy= strategy-option= update-refs verbose verify whitespace=',
  'git tag':
    'annotate cleanup= color column contains create-reflog delete edit file= force format= ignore-case ' +
    'list local-user= merged message= no-annotate no-cleanup no-color no-column no-contains ' +
    'no-create-reflog no-edit no-file no-force no-format no-ignore-case no-local-user no-merged ' +
    'no-points-at no-sign no-sort points-at sign sort= verify with without',
  'git fetch':
    'all append atomic auto-gc auto-maintenance deepen= depth= dry-run filter= force ipv4 ipv6 jobs= keep ' +
    'multiple negotiate-only negotiation-tip= no-all no-append no-atomic no-auto-gc no-auto-maintenance ' +
    'no-deepen no-depth no-dry-run no-filter no-force no-ipv4 no-ipv6 no-jobs no-keep no-multiple ' +
    'no-negotiate-only no-negotiation-tip no-prefetch no-progress no-prune no-prune-tags no-quiet ' +
    'no-recurse-submodules no-recurse-submodules-default no-server-option no-set-upstream ' +
    'no-shallow-exclude no-shallow-since no-show-forced-updates no-stdin no-submodule-prefix no-tags ' +
    'no-update-head-ok no-update-shallow no-upload-pack no-verbose no-write-commit-graph ' +
    'no-write-fetch-head prefetch progress prune prune-tags quiet recurse-submodules ' +
    'recurse-submodules-default= refetch refmap= server-option= set-upstream shallow-exclude= ' +
    'shallow-since= show-forced-updates stdin submodule-prefix= tags unshallow update-head-ok ' +
    'update-shallow upload-pack= verbose write-commit-graph write-fetch-head',
  'git pull':
    'all allow-unrelated-histories append autostash cleanup= commit deepen= depth= dry-run edit ff ' +
    'ff-only force gpg-sign ipv4 ipv6 jobs keep log negotiation-tip= no-all no-allow-unrelated-histories ' +
    'no-append no-autostash no-cleanup no-commit no-deepen no-depth no-dry-run no-edit no-ff no-force ' +
    'no-gpg-sign no-ipv4 no-ipv6 no-jobs no-keep no-log no-negotiation-tip no-progress no-prune no-quiet ' +
    'no-rebase no-recurse-submodules no-server-option no-set-upstream no-shallow-exclude no-shallow-since ' +
    'no-show-forced-updates no-signoff no-squash no-stat no-strategy no-strategy-option no-summary ' +
    'no-tags no-update-shallow no-upload-pack no-verbose no-verify no-verify-signatures progress prune ' +
    'quiet rebase recurse-submodules refmap= server-option= set-upstream shallow-exclude= shallow-since= ' +
    'show-forced-updates signoff squash stat strategy= strategy-option= summary tags unshallow ' +
    'update-shallow upload-pack= verbose verify verify-signatures',
  'git merge':
    'abort allow-unrelated-histories autostash cleanup= commit continue edit ff ff-only file gpg-sign ' +
    'into-name= log message= no-abort no-allow-unrelated-histories no-autostash no-cleanup no-commit ' +
    'no-continue no-edit no-ff no-gpg-sign no-into-name no-log no-message no-overwrite-ignore no-progress ' +
    'no-quiet no-quit no-rerere-autoupdate no-signoff no-squash no-stat no-strategy no-strategy-option ' +
    'no-summary no-verbose no-verify no-verify-signatures overwrite-ignore progress quiet quit ' +
    'rerere-autoupdate signoff squash stat strategy= strategy-option= summary verbose verify ' +
    'verify-signatures',
  'git add':
    'all chmod= dry-run edit force ignore-errors ignore-missing ignore-removal intent-to-add interactive ' +
    'no-all no-chmod no-dry-run no-edit no-force no-ignore-errors no-ignore-missing no-ignore-removal ' +
    'no-intent-to-add no-interactive no-patch no-pathspec-file-nul no-pathspec-from-file no-refresh ' +
    'no-renormalize no-sparse no-update no-verbose no-warn-embedded-repo patch pathspec-file-nul ' +
    'pathspec-from-file= refresh renormalize sparse update verbose warn-embedded-repo',
};

/**
 * Programs (and git subcommands) that accept prefixes but whose long options we do not list
 * completely (wget has hidden options and `--no-` forms of every flag): any prefix is ambiguous.
 */
export const PARTIAL_LONG_OPTIONS: ReadonlySet<string> = new Set([
  'wget', 'curl', 'npm', 'git log', 'git diff', 'git show', 'git stash', 'git remote',
]);
