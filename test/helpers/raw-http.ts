/** HTTP requests written by hand on a socket: what fetch would correct or refuse to send (malformed targets, no Host). */
import { connect } from 'node:net';

/** Writes `request` on a new connection to 127.0.0.1:`port` and resolves with the whole answer (the server ends it). */
export function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', (error) => (answer ? resolve(answer) : reject(error)));
    // Written, not ended: the server closes the connection once it has answered (Connection: close).
    socket.on('connect', () => socket.write(request));
  });
}

/** The answer's status line. */
export const statusLine = (answer: string) => answer.split('\r\n')[0];

/** A GET of `target` with `Host: host` that asks the server to close the connection after answering. */
export const rawGet = (target: string, host = '127.0.0.1', extraHeaders = '') =>
  `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${extraHeaders}\r\n`;
