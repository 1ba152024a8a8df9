-- Bulk storage (BULK_STORAGE_DIR, docs/bulk-history.md): the segments written as Splice's bulk storage
-- objects, and the SHA-256 of each object. A segment's row and its objects' rows are written in one
-- transaction after every object is in place under its final name, so a row never names a missing or
-- partial object, and the API serves only objects that have a row.
--
-- Folder names are "<start>~<end>" in Java's Instant.toString form; Splice pages through them in
-- string order, hence the "C" collation (byte order, whatever the database's default).
create table bulk_segments (
  folder text collate "C" primary key,
  kind text not null check (kind in ('updates', 'acs')),
  start_migration_id bigint not null,
  start_time timestamptz not null,
  end_migration_id bigint not null,
  end_time timestamptz not null,
  objects integer not null,
  updates bigint not null,
  written_at timestamptz not null default now()
);

-- The newest segment of a kind: where the writer resumes and what progress reports.
create index bulk_segments_kind_end on bulk_segments (kind, end_migration_id, end_time);

create table bulk_objects (
  key text collate "C" primary key,
  folder text collate "C" not null references bulk_segments (folder) on delete cascade,
  object_index integer not null,
  -- Base64 of the SHA-256 of the object's bytes, as Splice's digests are written.
  sha256 text not null,
  size_bytes bigint not null,
  unique (folder, object_index)
);
