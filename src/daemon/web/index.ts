export { startInbox } from './server.js';
export { recentDecisionsFrom } from './recent-decisions.js';
