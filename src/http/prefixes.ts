/** Where the API and the dashboard are mounted; the guard and the documents decide by these, not by raw URLs. */
export const API_PREFIX = '/api/v1';
export const DASHBOARD_PREFIX = '/dashboard';
