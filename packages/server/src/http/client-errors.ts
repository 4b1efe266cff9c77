import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { failureBody } from './error-handler.js';

/** Parser errors and what the client is told about them. */
const PARSER_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    message: 'The request line and headers are too large (at most 16 KiB).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', message: 'The request took too long to arrive.' },
};
const MALFORMED = { status: 400, code: 'malformed_request', message: 'The request cannot be parsed as HTTP.' };

/**
 * Fastify's `clientErrorHandler`: answers a request Node's HTTP parser refused (it never
 * reaches a route) with Roost's failure body, then closes the connection, as Node itself does.
 * A connection the client already reset gets nothing.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = PARSER_ERRORS[error.code ?? ''] ?? MALFORMED;
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  const body = JSON.stringify(failureBody(code, message));
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: ` +
      `close\r\n\r\n${body}`,
  );
  socket.destroy(error);
}
