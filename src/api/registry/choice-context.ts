/**
 * Choice contexts as Scan's ChoiceContextBuilder assembles them: each context entry that names a
 * contract also discloses it, in the order added; some contracts are only disclosed (the factory,
 * the locked amulet); flags are entries without a contract. Every disclosed contract carries its
 * created-event blob and the synchronizer AmuletRules names as active; the debug fields are left
 * out when the client asks (`excludeDebugFields`), as wallets do.
 *
 * choiceContextData is the Daml JSON of Splice.Api.Token.MetadataV1.ChoiceContext:
 * `{"values": {key: {"tag": "AV_ContractId" | "AV_Bool", "value": …}}}`.
 */
import type { StoredContract } from '../../domain/contract-json';
import { RawJson, type JsonBody } from '../../domain/raw-json';
import type { TemplateKey } from '../../domain/splice-contracts';
import { formatDateTime } from '../../domain/time';

interface Disclosure {
  template: TemplateKey;
  contract: StoredContract;
}

export class ChoiceContextBuilder {
  private readonly values: [string, JsonBody][] = [];
  private readonly disclosed: Disclosure[] = [];

  constructor(readonly synchronizerId: string) {}

  addContract(key: string, template: TemplateKey, contract: StoredContract): this {
    this.values.push([key, { tag: 'AV_ContractId', value: contract.contractId }]);
    return this.disclose(template, contract);
  }

  addOptionalContract(key: string, template: TemplateKey, contract: StoredContract | undefined): this {
    return contract ? this.addContract(key, template, contract) : this;
  }

  addBool(key: string, value: boolean): this {
    this.values.push([key, { tag: 'AV_Bool', value }]);
    return this;
  }

  disclose(template: TemplateKey, contract: StoredContract): this {
    this.disclosed.push({ template, contract });
    return this;
  }

  /** `ChoiceContext`. */
  json(excludeDebugFields: boolean): JsonBody {
    return {
      choiceContextData: { values: Object.fromEntries(this.values) },
      disclosedContracts: this.disclosed.map(({ template, contract }) => ({
        templateId: contract.templateId,
        contractId: contract.contractId,
        createdEventBlob: contract.createdEventBlob,
        synchronizerId: this.synchronizerId,
        ...(excludeDebugFields
          ? {}
          : {
              debugPackageName: template.packageName,
              debugPayload: new RawJson(contract.payload),
              debugCreatedAt: formatDateTime(contract.createdAt),
            }),
      })),
    };
  }
}
