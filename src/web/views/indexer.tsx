/** The indexer itself: ingestion position and lag, writer role, snapshots, and the upstreams when mirroring. */
import { api } from '../api';
import { Figures, Section, Show, Table, useLoad } from '../components';
import { count, duration } from '../format';

const REFRESH_MS = 5000;

export function IndexerView() {
  const status = useLoad(() => api.status(), [], REFRESH_MS);
  return (
    <>
      <h1>Indexer</h1>
      <Show loaded={status} what="the indexer status">
        {(s) => (
          <>
            <Section title="This process">
              <Figures
                label="This process"
                items={[
                  ['Writer role', s.writer],
                  ['Streams', s.streams.length],
                  ['Upstreams read', s.sources.length],
                ]}
              />
            </Section>
            <Section title="Ingestion">
              {s.streams.length === 0 ? (
                <p>Nothing has been ingested yet.</p>
              ) : (
                <Table
                  label="Ingestion streams"
                  head={['Stream', 'Position', 'Migration', 'Record time', 'Lag', 'Items applied', 'Last commit']}
                >
                  {s.streams.map((st) => (
                    <tr key={st.stream}>
                      <td>{st.stream}</td>
                      <td class="wrap">
                        <code>{st.position}</code>
                      </td>
                      <td>{st.migration_id ?? '—'}</td>
                      <td>{st.record_time ?? '—'}</td>
                      <td>{st.lag_seconds === null ? '—' : duration(st.lag_seconds)}</td>
                      <td class="num">{count(st.items_applied)}</td>
                      <td>{st.updated_at}</td>
                    </tr>
                  ))}
                </Table>
              )}
            </Section>
            <Section title="Migrations and snapshots">
              <Table label="Migrations" head={['Migration', 'Updates', 'Newest record time', 'Snapshots', 'Last snapshot']}>
                {s.migrations.map((m) => (
                  <tr key={m.migration_id}>
                    <td>{m.migration_id}</td>
                    <td class="num">{count(m.updates)}</td>
                    <td>{m.last_record_time ?? '—'}</td>
                    <td class="num">{m.snapshots}</td>
                    <td>{m.last_snapshot ?? 'none yet'}</td>
                  </tr>
                ))}
              </Table>
            </Section>
            {s.sources.length > 0 && (
              <Section title="Upstreams">
                <Table label="Upstreams" head={['Source', 'Upstream', 'Last outcome', 'Last asked', 'Last success']}>
                  {s.sources.map((u) => (
                    <tr key={`${u.source}-${u.upstream}`}>
                      <td>{u.source}</td>
                      <td>{u.upstream}</td>
                      <td>{u.last_outcome}</td>
                      <td>{u.last_at}</td>
                      <td>{u.last_ok_at ?? 'never'}</td>
                    </tr>
                  ))}
                </Table>
              </Section>
            )}
            {s.attestation && (
              <Section title="Attestation">
                {s.attestation.stalled ? (
                  <p class="error" role="alert">
                    Stalled at {s.attestation.stalled.position} since {s.attestation.stalled.since}: {s.attestation.stalled.reason}
                  </p>
                ) : (
                  <p>Not stalled.</p>
                )}
                <Table label="Attested upstreams" head={['Upstream', 'State', 'Agreed', 'Disagreed', 'Unavailable', 'Last disagreement']}>
                  {s.attestation.upstreams.map((u) => (
                    <tr key={u.upstream}>
                      <td>{u.upstream}</td>
                      <td>{u.state}</td>
                      <td class="num">{count(u.agreed)}</td>
                      <td class="num">{count(u.disagreed)}</td>
                      <td class="num">{count(u.unavailable)}</td>
                      <td>{u.last_disagreement ? `${u.last_disagreement.position} (${u.last_disagreement.at})` : '—'}</td>
                    </tr>
                  ))}
                </Table>
              </Section>
            )}
          </>
        )}
      </Show>
    </>
  );
}
