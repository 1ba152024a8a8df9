/** The ANS directory with prefix search. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ExternalLink, Party, SearchForm, Show, Table, useLoad } from '../components';

const STEP = 25;
/** The API's largest page. */
const MAX = 1000;

export function AnsView({ prefix }: { prefix: string | undefined }) {
  // /v0/ans-entries takes a page size and no page token: "more" asks for a larger first page.
  const [size, setSize] = useState(STEP);
  useEffect(() => setSize(STEP), [prefix]);
  const entries = useLoad(() => api.ansEntries(prefix ?? '', size), [prefix, size]);
  return (
    <>
      <h1>ANS directory</h1>
      <SearchForm view="ans" id="ans-prefix" label="Names starting with" button="Search" value={prefix} allowEmpty />
      <Show loaded={entries} what="the ANS entries">
        {(e) =>
          e.entries.length === 0 ? (
            <p>No name starts with “{prefix ?? ''}”.</p>
          ) : (
            <>
              <p aria-live="polite">
                {e.entries.length} name{e.entries.length === 1 ? '' : 's'}
                {prefix ? ` starting with “${prefix}”` : ''}
                {e.entries.length === size ? ' (more may follow)' : ''}.
              </p>
              <Table label="ANS entries" head={['Name', 'Party', 'URL', 'Description', 'Expires at']}>
                {e.entries.map((a) => (
                  <tr key={a.name}>
                    <td>{a.name}</td>
                    <td>
                      <Party id={a.user} />
                    </td>
                    <td>{a.url && <ExternalLink url={a.url} />}</td>
                    <td>{a.description}</td>
                    <td>{a.expires_at ?? 'never'}</td>
                  </tr>
                ))}
              </Table>
              {e.entries.length === size && size < MAX && (
                <button type="button" onClick={() => setSize(Math.min(MAX, size + STEP))}>
                  Show more names
                </button>
              )}
            </>
          )
        }
      </Show>
    </>
  );
}
