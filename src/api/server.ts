/** Listening and draining: close stops accepting, waits for in-flight requests, then cuts the rest. */
import type { Server } from 'node:http';
import type { Express } from 'express';

export interface RunningServer {
  server: Server;
  /** Base URL as a client on this machine would use it. */
  url: string;
  close(timeoutMs: number): Promise<void>;
}

export function listen(app: Express, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address();
      const boundPort = typeof address === 'object' && address ? address.port : port;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        url: `http://${shownHost}:${boundPort}`,
        close: (timeoutMs) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
            timer.unref();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
