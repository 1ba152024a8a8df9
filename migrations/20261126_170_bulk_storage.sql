-- Bulk storage (BULK_STORAGE_DIR, docs/bulk-history.md): the segments written as Splice's bulk storage
-- objects, and the SHA-256 of each object. A segment's row and its objects' rows are written in one
-- transaction after every object is in place under its final name, so a row never names a missing or
-- partial object, and the API serves only objects that have a row.
--
-- Folder names are "<start>~<end>" in Java's Instant.toString form; Splice pages through them in
-- string order, hence the "C" collation (byte order, whatever the database's default).
-- An ACS snapshot's folder can be an update segment's too (both "<day>~<next day>"): the kind tells them apart.
create table bulk_segments (
  folder text collate "C" not null,
  kind text not null check (kind in ('updates', 'acs')),
  start_migration_id bigint not null,
  start_time timestamptz not null,
  end_migration_id bigint not null,
  end_time timestamptz not null,
  objects integer not null,
  updates bigint not null,
  written_at timestamptz not null default now(),
  primary key (kind, folder)
);

-- The newest segment of a kind: where the writer resumes and what progress reports.
create index bulk_segments_kind_end on bulk_segments (kind, end_migration_id, end_time);

create table bulk_objects (
  key text collate "C" primary key,
  kind text not null,
  folder text collate "C" not null,
  object_index integer not null,
  -- Base64 of the SHA-256 of the object's bytes, as Splice's digests are written.
  sha256 text not null,
  size_bytes bigint not null,
  unique (kind, folder, object_index),
  foreign key (kind, folder) references bulk_segments (kind, folder) on delete cascade
);
