import { activeContractJson } from '../../../src/domain/active-contract';
import { parseTimestamp } from '../../../src/domain/time';

const base = {
  createdInUpdateId: 'u1' as string | null,
  contractId: '00ab',
  templateId: 'pkg:Splice.Amulet:Amulet',
  packageName: 'splice-amulet',
  createArgumentsJson: '{"owner":"b::1","amount":{"initialAmount":"1.0000000000"}}',
  createdAt: parseTimestamp('2025-03-10T14:22:04.552800Z'),
  signatories: ['z::1', 'DSO::1', 'a::1'],
  observers: ['o::2', 'o::1'],
};

describe('ActiveContract rendering', () => {
  it('keeps key order, sorts parties, strips the fraction and splices the arguments verbatim', () => {
    const text = activeContractJson(base);
    expect(text).toBe(
      '{"created_in_update_id":"u1","contract_id":"00ab","template_id":"pkg:Splice.Amulet:Amulet","package_name":"splice-amulet",' +
        '"create_arguments":{"owner":"b::1","amount":{"initialAmount":"1.0000000000"}},"created_at":"2025-03-10T14:22:04.5528Z",' +
        '"signatories":["DSO::1","a::1","z::1"],"observers":["o::1","o::2"]}',
    );
  });

  it('is null for imported contracts, and strips a participant-local # prefix', () => {
    expect(JSON.parse(activeContractJson({ ...base, createdInUpdateId: null })).created_in_update_id).toBeNull();
    expect(JSON.parse(activeContractJson({ ...base, createdInUpdateId: '#u9' })).created_in_update_id).toBe('u9');
  });

  it('prints whole seconds without a fraction', () => {
    expect(JSON.parse(activeContractJson({ ...base, createdAt: parseTimestamp('2025-02-11T18:00:00Z') })).created_at).toBe(
      '2025-02-11T18:00:00Z',
    );
  });
});
