/**
 * The ledger error handler on errors no /v2 route raises today but a
 * middleware or a future route may: each is a client's mistake, so a 400
 * text/plain, never the redacted 500. (Bad gzip bodies through the real
 * server are in transaction-by-id.test.ts.)
 */
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import express from 'express';
import { ledgerErrorHandler } from '../../../src/api/ledger/errors';
import { request } from '../../support/http/http';

async function answerTo(error: unknown) {
  const app = express();
  app.get('/boom', () => {
    throw error;
  });
  app.use(ledgerErrorHandler('participant::1220'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'GET', '/boom');
    return { status: res.status, type: res.headers.get('content-type'), text: res.text };
  } finally {
    server.close();
  }
}

/** A raw zlib error, as body-parser passes on for a body that does not inflate: status 400, no `type`. */
function zlibError(): Error {
  try {
    zlib.gunzipSync(Buffer.from('xx'));
  } catch (err) {
    return Object.assign(err as Error, { status: 400, statusCode: 400 });
  }
  throw new Error('gunzip accepted "xx"');
}

describe('ledger error handler', () => {
  it.each([
    ['a zlib error tagged with status 400', zlibError()],
    ['an http-errors 4xx without type', Object.assign(new Error('Unsupported Media Type'), { status: 415 })],
    ['an error the client may see (expose)', Object.assign(new Error('bad'), { expose: true })],
  ])('%s is the 400 text/plain of an undecodable body', async (_name, error) => {
    expect(await answerTo(error)).toEqual({ status: 400, type: 'text/plain; charset=utf-8', text: 'Invalid value for: body' });
  });

  it('a URIError (malformed percent-escape) is a 400 text/plain', async () => {
    let error: unknown;
    try {
      decodeURIComponent('%E0%A4%A');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(URIError);
    expect(await answerTo(error)).toEqual({ status: 400, type: 'text/plain; charset=utf-8', text: 'Illegal request-target' });
    // As Express's router raises it: with status 400, which must not make it a body error.
    Object.assign(error as object, { status: 400 });
    expect(await answerTo(error)).toEqual({ status: 400, type: 'text/plain; charset=utf-8', text: 'Illegal request-target' });
  });

  it('anything else is still the redacted 500', async () => {
    expect(await answerTo(new TypeError('x is undefined'))).toMatchObject({ status: 500, type: 'application/json; charset=utf-8' });
  });
});
