/**
 * The current-state answers every validator polls, through the answer cache (src/api/answer-cache.ts):
 * the rules contracts, the mining rounds, /v0/dso and the DSO party id, each kept with the answer
 * families it is made from. Shared by the Scan routes and the scan-proxy's, which keep one value
 * and send it in their own forms.
 */
import type { AnswerFamily } from '../../domain/answer-families';
import { findDsoPartyId } from '../../store/network-repository';
import type { Db } from '../../store/pool';
import type { KeptAnswer } from '../answer-cache';
import { answerCacheOf, type ApiContext } from '../context';
import { amuletRules, ansRules, dsoInfo, externalPartyAmuletRules, miningRounds, type DsoInfo, type MiningRounds } from './current-state';
import type { StoredContract } from '../../domain/contract-json';

export interface HotAnswers {
  amuletRules(): Promise<KeptAnswer<StoredContract>>;
  ansRules(): Promise<KeptAnswer<StoredContract>>;
  externalPartyAmuletRules(): Promise<KeptAnswer<StoredContract>>;
  miningRounds(): Promise<KeptAnswer<MiningRounds>>;
  dsoInfo(): Promise<KeptAnswer<DsoInfo>>;
  /** null when no DSO party is known yet. */
  dsoPartyId(): Promise<KeptAnswer<string | null>>;
}

export function hotAnswers(context: ApiContext): HotAnswers {
  const cache = answerCacheOf(context);
  const { db, config } = context;
  // Every answer here is read at the current migration, except the DSO party id (the newest migration with a DsoRules).
  const kept = <T>(name: string, families: AnswerFamily[], make: (db: Db) => Promise<T>) =>
    cache.get(db, name, name, families, async (d) => ({ value: await make(d) }));
  return {
    amuletRules: () => kept('amulet-rules', ['amuletRules', 'migration'], amuletRules),
    ansRules: () => kept('ans-rules', ['ansRules', 'migration'], ansRules),
    externalPartyAmuletRules: () =>
      kept('external-party-amulet-rules', ['externalPartyAmuletRules', 'migration'], externalPartyAmuletRules),
    miningRounds: () => kept('mining-rounds', ['rounds', 'migration'], miningRounds),
    dsoInfo: () => kept('dso', ['amuletRules', 'rounds', 'dso', 'migration'], (d) => dsoInfo(d, config)),
    dsoPartyId: () => kept('dso-party-id', ['dso', 'networkFacts'], async (d) => (await findDsoPartyId(d)) ?? null),
  };
}
