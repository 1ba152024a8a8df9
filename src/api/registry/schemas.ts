/**
 * The answers of the token-standard registry (router.ts), named in the OpenAPI document's
 * components as token-metadata-v1.yaml, transfer-instruction-v1.yaml, allocation-instruction-v1.yaml
 * and allocation-v1.yaml name them.
 */
import { z } from 'zod';
import { dateTime, int32, jsonObject, str } from '../schema-kit';

/** The APIs supported, with their major versions. */
export const SupportedApis = z.record(z.string(), int32());

export const Instrument = z
  .object({
    id: str(),
    name: str(),
    symbol: str(),
    totalSupply: str('Decimal: unlocked plus locked amulet at the latest ACS snapshot.').optional(),
    totalSupplyAsOf: dateTime('The record time of that snapshot.').optional(),
    decimals: z.number().int().meta({ format: 'int8' }),
    supportedApis: SupportedApis,
  })
  .meta({ id: 'Instrument' });

const DisclosedContract = z
  .object({
    templateId: str(),
    contractId: str(),
    createdEventBlob: str('Base64; "" when the source gave none.'),
    synchronizerId: str('The synchronizer AmuletRules names as active.'),
    debugPackageName: str().optional(),
    debugPayload: jsonObject().optional(),
    debugCreatedAt: dateTime().optional(),
  })
  .meta({ id: 'DisclosedContract' });

export const ChoiceContext = z
  .object({
    choiceContextData: jsonObject(
      'Daml JSON of a MetadataV1.ChoiceContext: {"values": {key: {"tag": "AV_ContractId" | "AV_Bool", "value": …}}}.',
    ),
    disclosedContracts: z.array(DisclosedContract),
  })
  .meta({ id: 'ChoiceContext' });

export const TransferFactoryWithChoiceContext = z
  .object({
    factoryId: str('The ExternalPartyAmuletRules contract.'),
    transferKind: z.enum(['self', 'direct', 'offer']),
    choiceContext: ChoiceContext,
  })
  .meta({ id: 'TransferFactoryWithChoiceContext' });

export const FactoryWithChoiceContext = z
  .object({ factoryId: str('The ExternalPartyAmuletRules contract.'), choiceContext: ChoiceContext })
  .meta({ id: 'FactoryWithChoiceContext' });
