/**
 * The shapes of secrets the audit log never holds. The token rules follow the rule set of gitleaks'
 * default configuration (github.com/gitleaks/gitleaks, config/gitleaks.toml): each rule keeps
 * gitleaks' rule id, written here as our own JavaScript pattern. Like gitleaks, every rule names
 * keywords, one of which (in any letter case) is part of every match: a string holding none of
 * them is not searched by that rule, which keeps masking cheap for ordinary text. A property test
 * holds each rule to its keywords.
 *
 * `mask: 'match'` replaces the whole match; `mask: 'value'` keeps group 1 (the name, the header,
 * the user) and replaces the rest.
 */
export interface SecretRule {
  readonly id: string;
  readonly keywords: readonly string[];
  readonly pattern: RegExp;
  readonly mask: 'match' | 'value';
}

const rule = (id: string, keywords: readonly string[], pattern: RegExp, mask: SecretRule['mask'] = 'match'): SecretRule => ({ id, keywords, pattern, mask });

/** A secret value in text: up to the next space, quote or separator a shell or a header would end it with. */
const VALUE = String.raw`[^\s'"\`,;&|<>)]+`;

export const TOKEN_RULES: readonly SecretRule[] = [
  rule('private-key', ['-----begin'], /-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----|$)/gi),
  rule('aws-access-token', ['akia', 'asia', 'abia', 'acca', 'a3t'], /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g),
  rule('github-pat', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], /\bgh[pousr]_[A-Za-z0-9]{20,}/g),
  rule('github-fine-grained-pat', ['github_pat_'], /\bgithub_pat_\w{20,}/g),
  rule('gitlab-token', ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glft-', 'glimt-', 'glagent-', 'gloas-', 'glcbt-', 'glsoat-', 'glffct-'],
    /\bgl(?:pat|dt|ptt|rt|ft|imt|agent|oas|cbt|soat|ffct)-[\w-]{20,}/g),
  rule('gitlab-runner-registration-token', ['gr1348941'], /\bGR1348941[\w-]{20,}/g),
  rule('slack-token', ['xox'], /\bxox[abposre]-[A-Za-z0-9-]{10,}/g),
  rule('slack-webhook-url', ['hooks.slack.com'], /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/gi),
  rule('stripe-access-token', ['sk_', 'rk_', 'pk_'], /\b(?:sk|rk|pk)_(?:test|live|prod)_[A-Za-z0-9]{10,}/g),
  rule('openai-anthropic-style-key', ['sk-', 'pk-', 'rk-'], /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}/g),
  rule('npm-access-token', ['npm_'], /\bnpm_[A-Za-z0-9]{36}\b/g),
  rule('pypi-upload-token', ['pypi-'], /\bpypi-AgEIcHlwaS5vcmc[\w-]{20,}/g),
  rule('gcp-api-key', ['aiza'], /\bAIza[\w-]{30,}/g),
  rule('gcp-oauth-access-token', ['ya29.'], /\bya29\.[\w-]{20,}/g),
  rule('jwt', ['eyj'], /\beyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]*/g),
  rule('sendgrid-api-token', ['sg.'], /\bSG\.[\w-]{16,}\.[\w-]{16,}/g),
  rule('twilio-api-key', ['sk'], /\bSK[0-9a-fA-F]{32}\b/g),
  rule('digitalocean-token', ['dop_v1_', 'doo_v1_', 'dor_v1_'], /\bdo[opr]_v1_[a-f0-9]{64}\b/g),
  rule('shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g),
  rule('huggingface-access-token', ['hf_'], /\bhf_[A-Za-z]{34}\b/g),
  rule('databricks-api-token', ['dapi'], /\bdapi[a-f0-9]{32}(?:-\d)?\b/g),
  rule('hashicorp-vault-token', ['hvs.', 'hvb.'], /\bhv[sb]\.[\w-]{24,}/g),
  rule('hashicorp-tf-api-token', ['atlasv1'], /\b[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70}/gi),
  rule('linear-api-key', ['lin_api_'], /\blin_api_[A-Za-z0-9]{40}\b/g),
  rule('age-secret-key', ['age-secret-key-1'], /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g),
  rule('docker-personal-access-token', ['dckr_pat_'], /\bdckr_pat_[\w-]{20,}/g),
  rule('grafana-token', ['glc_', 'glsa_'], /\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})/g),
  rule('new-relic-user-api-key', ['nrak-'], /\bNRAK-[A-Z0-9]{27}\b/g),
  rule('1password-service-account-token', ['ops_eyj'], /\bops_eyJ[\w+/]{50,}={0,3}/g),
  rule('atlassian-api-token', ['atatt3'], /\bATATT3[A-Za-z0-9_=-]{50,}/g),
  rule('postman-api-token', ['pmak-'], /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/gi),
  rule('doppler-api-token', ['dp.pt.'], /\bdp\.pt\.[a-z0-9]{40,}/gi),
  rule('pulumi-api-token', ['pul-'], /\bpul-[a-f0-9]{40}\b/g),
  rule('planetscale-token', ['pscale_'], /\bpscale_(?:tkn|pw|oauth)_[\w.-]{32,64}/g),
  rule('heroku-api-key-v2', ['hrku-'], /\bHRKU-AA[0-9a-zA-Z_-]{58}\b/g),
  rule('azure-ad-client-secret', ['q~'], /(?<![\w~.-])[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}(?![\w~.-])/g),
];

/**
 * Secrets that are recognised by where they stand, not by their shape: the value after a name, a
 * header, a flag or a URL's user. gitleaks covers these with its generic rules and entropy; here
 * the names are explicit and the value is always masked.
 */
export const CONTEXT_RULES: readonly SecretRule[] = [
  // `Authorization: Basic …`, `Proxy-Authorization: Bearer …`, `authorization=…`
  rule('authorization-header', ['authorization'],
    new RegExp(String.raw`(authorization["']?\s*[:=]\s*["']?(?:(?:basic|bearer|token|digest|negotiate|ntlm|aws4-hmac-sha256)\s+)?)${VALUE}`, 'gi'), 'value'),
  rule('bearer-token', ['bearer'], new RegExp(String.raw`(\bbearer\s+)${VALUE}`, 'gi'), 'value'),
  // `X-Api-Key: …`, `X-Auth-Token: …`, `Cookie: …`, `PRIVATE-TOKEN: …`
  rule('secret-header', ['key', 'token', 'secret', 'auth', 'passw', 'cookie', 'session'],
    new RegExp(String.raw`((?<![\w-])(?!(?:proxy-)?authorization:)[\w-]*(?:api-?key|token|secret|auth|passw|cookie|session)[\w-]*:\s*)${VALUE}`, 'gi'), 'value'),
  // `curl -u user:pass`, `--user=user:pass`, `--proxy-user user:pass`, `-uuser:pass`
  rule('basic-auth-option', ['-u', '--user', '--proxy-user'],
    /((?:^|[\s'"])(?:-u\s*|--(?:proxy-)?user[=\s]\s*)['"]?[^\s:'"]*:)[^\s'"]+/gi, 'value'),
  // `https://user:pass@host`
  rule('url-password', ['://'], /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@'"]*:)[^\s/@'"]+(?=@)/gi, 'value'),
  // `?access_token=…&sig=…`
  rule('url-secret-parameter', ['token', 'key', 'secret', 'passw', 'sig', 'auth', 'pwd'],
    new RegExp(String.raw`([?&](?:[\w.-]*(?:token|api[-_]?key|secret|passw(?:or)?d?|sig|signature|auth|pwd|credential)[\w.-]*)=)[^\s&#'"]+`, 'gi'), 'value'),
  // `--password x`, `--token=x`, `-p…` is left alone (too common a flag), `--client-secret x`
  rule('secret-option', ['passw', 'token', 'secret', 'key'],
    new RegExp(String.raw`((?:^|[\s'"])--?[\w-]*(?:passw(?:or)?d?|token|secret|api-?key|access-key|private-key)[\w-]*[= ]\s*['"]?)${VALUE}`, 'gi'), 'value'),
  // `GITHUB_TOKEN=x`, `aws_secret_access_key = x`, `_authToken=x`, `MYSQL_PWD=x`, `"password": "x"`
  rule('secret-assignment', ['passw', 'token', 'secret', 'key', 'pwd', 'credential', 'auth'],
    new RegExp(String.raw`(\b[\w.-]*(?:passw(?:or)?d?|token|secret|api_?key|apikey|access_?key|private_?key|_pwd|credential|_auth|auth_?token)[\w.-]*["']?\s*[:=]\s*["']?)${VALUE}`, 'gi'), 'value'),
];

/** Object keys whose values are secrets whatever they look like. */
export const SENSITIVE_KEY = /pass(word|wd)?|secret|token|api[_-]?key|authorization|auth[_-]?token|credential|private[_-]?key|cookie|session[_-]?key|_pwd$/i;

/** Object keys whose values are secrets when they look random (a `key` may also be a plain name). */
export const POSSIBLY_SENSITIVE_KEY = /key|auth|sig(nature)?|salt|nonce|cert/i;

/** Names of an `{ name, value }` pair (env lists, headers) whose value is a secret. */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE_KEY.test(name) || (/(^|[_-])(PWD|PASS|KEY|AUTH)$/i.test(name) && name.toUpperCase() !== 'PWD');
}
