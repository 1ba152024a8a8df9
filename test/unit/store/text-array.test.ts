import pg from 'pg';
import { parseTextArray } from '../../../src/store/text-array';

const pgParse = (pg.types.getTypeParser as (oid: number) => (value: string) => unknown)(1009);

describe('parseTextArray', () => {
  it.each([
    ['{}', []],
    ['{a}', ['a']],
    ['{DSO::1220ab,alice::1220cd}', ['DSO::1220ab', 'alice::1220cd']],
    ['{"",b}', ['', 'b']],
    ['{"a b","c,d","e{f}"}', ['a b', 'c,d', 'e{f}']],
    ['{"a\\"b","c\\\\d"}', ['a"b', 'c\\d']],
    ['{NULL,a}', [null, 'a']],
    ['{a,null}', ['a', 'null']],
    ['{"NULL",a}', ['NULL', 'a']],
    ['{nullable,anull}', ['nullable', 'anull']],
    [
      '{{a,b},{c,d}}',
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
  ])('reads %s as pg does', (literal, elements) => {
    expect(parseTextArray(literal)).toEqual(elements);
    expect(parseTextArray(literal)).toEqual(pgParse(literal));
  });
});
