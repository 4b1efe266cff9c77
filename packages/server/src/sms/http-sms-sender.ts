import { JobFailure } from '../core/jobs.js';
import type { SmsSender } from '../core/sms.js';

/** The HTTP gateway's settings (`users.sms.sender`, core/config-sms.ts). */
export interface HttpSmsSettings {
  url: string;
  method: 'POST' | 'PUT';
  /** Sent as they are: an API key or a Basic authorization is one of them. */
  headers: Readonly<Record<string, string>>;
  /** The JSON body, its strings' `{{to}}` and `{{text}}` replaced. */
  body: unknown;
  timeoutMs: number;
}

/**
 * Fills the body template: every string of the JSON value with `{{to}}` and `{{text}}` replaced.
 * The replacement is made in the parsed value, never in JSON text, so a text with quotes or
 * braces cannot change the body's shape.
 */
function fillSmsBody(template: unknown, to: string, text: string): unknown {
  if (typeof template === 'string') return template.replaceAll('{{to}}', to).replaceAll('{{text}}', text);
  if (Array.isArray(template)) return template.map((v) => fillSmsBody(v, to, text));
  if (template !== null && typeof template === 'object')
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillSmsBody(v, to, text)]));
  return template;
}

/** A status after which trying again cannot help: the gateway refused the request itself. */
const finalStatus = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * The built-in sender (docs/users.md, "Codes by SMS"): one HTTP request per text to a gateway
 * (Twilio, Vonage, an own relay), as most of them take a JSON POST with a secret header. A 2xx
 * answer is delivered; anything else fails the try (core/jobs.ts `JobFailure`, final for a 4xx
 * other than 408 and 429), and the job queue tries again (sms/sms-job.ts).
 */
export function createHttpSmsSender(settings: HttpSmsSettings): SmsSender {
  return {
    async send(to, text, signal) {
      const timeout = AbortSignal.timeout(settings.timeoutMs);
      const response = await fetch(settings.url, {
        method: settings.method,
        headers: { 'content-type': 'application/json', ...settings.headers },
        body: JSON.stringify(fillSmsBody(settings.body, to, text)),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      // The answer's body is not needed; reading it frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok)
        throw new JobFailure(
          `the SMS gateway answered ${response.status}`,
          response.status,
          finalStatus(response.status),
        );
    },
  };
}
