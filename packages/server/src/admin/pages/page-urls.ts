/**
 * The addresses of the backend's pages that link to one another both ways: a request's story
 * lists its jobs (logs-pages.ts), a job and a delivery name their request (jobs-pages.ts,
 * webhooks-pages.ts).
 */

/** `/admin/jobs/<id>`: one job. */
export const jobUrl = (id: string) => `/admin/jobs/${encodeURIComponent(id)}`;

/** `/admin/logs/<request id>`: one request's story. */
export const logUrl = (requestId: string) => `/admin/logs/${encodeURIComponent(requestId)}`;

/** `/admin/webhooks/<id>`: one webhook and its deliveries. */
export const webhookUrl = (id: string) => `/admin/webhooks/${encodeURIComponent(id)}`;
