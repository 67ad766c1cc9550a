export { startInbox, type Inbox, type InboxOptions } from './server.js';
export { readRecentDecisions, recentDecisionsFrom, type RecentDecision } from './recent-decisions.js';
