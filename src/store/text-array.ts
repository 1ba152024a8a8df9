/**
 * text[] values as the server sends them ({a,b}), read into strings. pg's own parser walks the
 * literal a character at a time through an object per character; the writer reads the stakeholders
 * of every contract a batch archives this way, and the readers many party and template lists.
 */
import pg from 'pg';

const TEXT_ARRAY = 1009;
const slowParse = (pg.types.getTypeParser as (oid: number) => (value: string) => unknown)(TEXT_ARRAY) as (
  value: string,
) => (string | null)[];

const OPEN_BRACE = 0x7b;
const NULL_ELEMENT = /[{,]null[,}]/i;

/**
 * The elements of a text[] literal. The server quotes every element that is empty, holds a
 * delimiter, brace, quote, backslash or white space, or reads NULL; so a one-dimensional literal
 * without a quote is its elements between commas, none of them escaped. An unquoted NULL is a null
 * element: that, quotes, several dimensions and explicit bounds ([1:2]={…}) are left to pg's parser.
 */
export function parseTextArray(value: string): (string | null)[] {
  if (value.charCodeAt(0) !== OPEN_BRACE || value.charCodeAt(1) === OPEN_BRACE || value.includes('"') || NULL_ELEMENT.test(value)) {
    return slowParse(value);
  }
  return value.length === 2 ? [] : value.slice(1, -1).split(',');
}
