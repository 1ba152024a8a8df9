-- Versions of the answers every validator polls (rules, rounds, the DSO, the transfer factory), one
-- row per answer family (src/domain/answer-families.ts). The writer sets a family's version, in the
-- same transaction, whenever it creates, archives or reassigns a contract of the family's templates,
-- and a mirror when it stores a created-event blob; the version is the writing transaction's id, so
-- it never repeats. API processes keep answers in memory and serve one only after reading the
-- versions anew, once the request has arrived (src/api/answer-cache.ts). A family without a row has
-- never changed since this table was created.
create table answer_versions (
  family  text   primary key,
  version bigint not null
);
