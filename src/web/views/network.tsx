/** The network: DSO and migration, rounds, price and fees, supply over the snapshots and per day, daily mint and burn, the SVs and their scans. */
import { useMemo } from 'preact/hooks';
import { api, type DsoInfo, type ScansResponse } from '../api';
import { TimeChart } from '../chart';
import { ErrorMessage, Figures, Id, Party, Section, Show, Table, useLoad } from '../components';
import { amount, count } from '../format';
import { useSnapshots } from '../snapshots';
import { MintBurnSection } from './mint-burn';
import { SupplyDaysSection } from './supply-days';

const byRound = (a: { round: { number: string } }, b: { round: { number: string } }) => Number(a.round.number) - Number(b.round.number);

export function NetworkView() {
  const dso = useLoad(() => api.dso(), []);
  const migration = useLoad(() => api.lastMigration(), []);
  return (
    <>
      <h1>Network</h1>
      <Section title="DSO">
        <Show loaded={dso} what="the DSO">
          {(d) => (
            <Figures
              label="DSO"
              items={[
                ['DSO party', <Party id={d.dso_party_id} />],
                ['Current migration', migration.error ? 'unknown' : (migration.data?.migration_id ?? '…')],
                ['Super validators', d.dso_rules.contract.payload.svs.length],
                ['Voting threshold', d.voting_threshold],
                ['Amulet price (USD)', amount(d.latest_mining_round.contract.payload.amuletPrice)],
                ['Latest open round', d.latest_mining_round.contract.payload.round.number],
              ]}
            />
          )}
        </Show>
      </Section>
      <RoundsSection />
      <Section title="Fees (AmuletRules)">
        <Show loaded={dso} what="the AmuletRules">
          {(d) => <Fees dso={d} />}
        </Show>
      </Section>
      <SupplySection />
      <SupplyDaysSection />
      <MintBurnSection />
      <SvSection dso={dso} />
    </>
  );
}

function RoundsSection() {
  const rounds = useLoad(() => api.rounds(), []);
  const closed = useLoad(() => api.closedRounds(), []);
  return (
    <Section title="Mining rounds">
      <Show loaded={rounds} what="the open and issuing rounds">
        {(r) => (
          <Table label="Open and issuing rounds" head={['Round', 'State', 'Opens at', 'Target close', 'Amulet price (USD)']}>
            {Object.values(r.open_mining_rounds)
              .map((c) => c.contract.payload)
              .sort(byRound)
              .map((p) => (
                <tr key={`open-${p.round.number}`}>
                  <td>{p.round.number}</td>
                  <td>open</td>
                  <td>{p.opensAt}</td>
                  <td>{p.targetClosesAt}</td>
                  <td>{amount(p.amuletPrice)}</td>
                </tr>
              ))}
            {Object.values(r.issuing_mining_rounds)
              .map((c) => c.contract.payload)
              .sort(byRound)
              .map((p) => (
                <tr key={`issuing-${p.round.number}`}>
                  <td>{p.round.number}</td>
                  <td>issuing</td>
                  <td>{p.opensAt}</td>
                  <td>{p.targetClosesAt}</td>
                  <td>—</td>
                </tr>
              ))}
          </Table>
        )}
      </Show>
      <h3>Closed rounds</h3>
      <Show loaded={closed} what="the closed rounds">
        {(c) =>
          c.rounds.length === 0 ? (
            <p>No closed round in the current migration.</p>
          ) : (
            <Table label="Closed rounds" head={['Round', 'Closed at']}>
              {[...c.rounds]
                .sort((a, b) => byRound(a.payload, b.payload))
                .map((r) => (
                  <tr key={r.contract_id}>
                    <td>{r.payload.round.number}</td>
                    <td>{r.created_at}</td>
                  </tr>
                ))}
            </Table>
          )
        }
      </Show>
    </Section>
  );
}

function Fees({ dso }: { dso: DsoInfo }) {
  const config = dso.amulet_rules.contract.payload.configSchedule.initialValue.transferConfig;
  return (
    <>
      <Figures
        label="Transfer fees"
        items={[
          ['Create fee (USD)', amount(config.createFee.fee)],
          ['Holding fee (USD per round)', amount(config.holdingFee.rate)],
          ['Lock holder fee (USD)', amount(config.lockHolderFee.fee)],
          ['Transfer fee, initial rate', amount(config.transferFee.initialRate)],
          ['Extra featured-app reward (USD)', amount(config.extraFeaturedAppRewardAmount)],
          ['Max inputs / outputs / lock holders', `${config.maxNumInputs} / ${config.maxNumOutputs} / ${config.maxNumLockHolders}`],
        ]}
      />
      {config.transferFee.steps.length > 0 && (
        <Table label="Transfer fee steps" head={['From amount (USD)', 'Rate']}>
          {config.transferFee.steps.map((s) => (
            <tr key={s._1}>
              <td>{amount(s._1)}</td>
              <td>{amount(s._2)}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

/** Supply at the latest snapshot and over the snapshots, one page of them at a time. */
function SupplySection() {
  const { first, snapshots: all, next, error, more } = useSnapshots();
  // The chart runs oldest to newest.
  const chart = useMemo(() => {
    const ascending = [...all].reverse();
    return {
      times: ascending.map((s) => Date.parse(s.record_time) / 1000),
      series: [
        { label: 'Unlocked amulet', values: ascending.map((s) => Number(s.unlocked_amulet)), color: '#1d4ed8' },
        { label: 'Locked amulet', values: ascending.map((s) => Number(s.locked_amulet)), color: '#b45309' },
      ],
    };
  }, [all]);

  return (
    <Section title="Amulet supply">
      <Show loaded={first} what="the ACS snapshots">
        {() => {
          const latest = all[0];
          if (!latest) return <p>No ACS snapshot has been taken yet: they are taken every 3 hours of ledger time.</p>;
          return (
            <>
              <Figures
                label="Supply at the latest snapshot"
                items={[
                  ['Latest snapshot', `${latest.record_time} (migration ${latest.migration_id})`],
                  ['Unlocked amulet', amount(latest.unlocked_amulet)],
                  ['Locked amulet', amount(latest.locked_amulet)],
                  ['Active contracts', count(latest.contract_count)],
                ]}
              />
              <h3>Supply over the snapshots</h3>
              <TimeChart label="Unlocked and locked amulet at each snapshot" times={chart.times} series={chart.series} />
              {error !== undefined && <ErrorMessage error={error} what="older snapshots" />}
              {next !== null && (
                <button type="button" onClick={more}>
                  Show older snapshots
                </button>
              )}
              <details>
                <summary>Figures of the {all.length} snapshots shown</summary>
                <Table label="Supply at each snapshot" head={['Snapshot', 'Migration', 'Unlocked', 'Locked', 'Contracts']}>
                  {all.map((s) => (
                    <tr key={`${s.migration_id}-${s.record_time}`}>
                      <td>{s.record_time}</td>
                      <td>{s.migration_id}</td>
                      <td>{amount(s.unlocked_amulet)}</td>
                      <td>{amount(s.locked_amulet)}</td>
                      <td>{count(s.contract_count)}</td>
                    </tr>
                  ))}
                </Table>
              </details>
            </>
          );
        }}
      </Show>
    </Section>
  );
}

function SvSection({ dso }: { dso: ReturnType<typeof useLoad<DsoInfo>> }) {
  const scans = useLoad(() => api.scans(), []);
  return (
    <Section title="Super validators and their scans">
      <Show loaded={dso} what="the super validators">
        {(d) => <SvTable dso={d} scans={scans.data} />}
      </Show>
      {scans.error !== undefined && <ErrorMessage error={scans.error} what="the scans" />}
    </Section>
  );
}

function SvTable({ dso, scans }: { dso: DsoInfo; scans: ScansResponse | undefined }) {
  const scanUrls = (name: string) => (scans?.scans ?? []).flatMap((s) => s.scans.filter((x) => x.svName === name).map((x) => x.publicUrl));
  return (
    <Table label="Super validators" head={['Name', 'Party', 'Reward weight', 'Joined in round', 'Participant', 'Scan']}>
      {dso.dso_rules.contract.payload.svs.map(([party, info]) => (
        <tr key={party}>
          <td>{info.name}</td>
          <td>
            <Party id={party} />
          </td>
          <td>{count(Number(info.svRewardWeight))}</td>
          <td>{info.joinedAsOfRound.number}</td>
          <td>
            <Id value={info.participantId} keep={14} />
          </td>
          <td>{scans === undefined ? '…' : scanUrls(info.name).join(', ') || 'none announced'}</td>
        </tr>
      ))}
    </Table>
  );
}
