/**
 * Party ids as Canton parses them (PartyId.tryFromProtoPrimitive): a unique
 * identifier "<identifier>::<namespace>". A malformed one is a client mistake,
 * which the Scan app answers with Canton's own message.
 */

/** Canton's message for a malformed party id, or undefined when it parses. */
export function partyIdProblem(text: string): string | undefined {
  if (text === '') return 'Empty string is not a valid unique identifier.';
  const at = text.indexOf('::');
  if (at === -1) return `Invalid unique identifier \`${text}\` with missing namespace.`;
  if (at === 0) return `Invalid unique identifier \`${text}\` with empty identifier.`;
  if (at + 2 === text.length) return `Fingerprint decoding of \`${text}\` failed with: empty namespace.`;
  return undefined;
}
