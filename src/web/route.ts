/** Views are addressed by the URL's fragment (#/party/<id>), so that the server serves one page for all. */
export interface Route {
  view: string;
  /** The rest of the path, decoded: an update id, a party id, a name prefix. */
  arg: string | undefined;
}

export function parseRoute(hash: string): Route {
  const [view = '', ...rest] = hash.replace(/^#\/?/, '').split('/');
  const arg = rest.length > 0 ? rest.join('/') : undefined;
  let decoded: string | undefined;
  try {
    decoded = arg === undefined || arg === '' ? undefined : decodeURIComponent(arg);
  } catch {
    decoded = arg;
  }
  return { view: view || 'network', arg: decoded };
}
