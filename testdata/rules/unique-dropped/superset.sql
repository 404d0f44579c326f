-- Info: the replacement is over a strict superset of the key, scoped per
-- tenant: uniqueness narrowed, which may be the intent.
CREATE TABLE identities (
    nid uuid NOT NULL,
    provider text NOT NULL,
    subject text NOT NULL,
    CONSTRAINT identities_provider_subject_key UNIQUE (provider, subject)
);
ALTER TABLE identities DROP CONSTRAINT identities_provider_subject_key; -- want: unique-dropped "^identities.identities_provider_subject_key \(provider, subject\): the unique constraint is dropped and identities_nid_provider_subject \(nid, provider, subject\) replaces it: uniqueness narrowed to per-nid, so two identities with the same provider and subject and different nid are both accepted$"
CREATE UNIQUE INDEX identities_nid_provider_subject ON identities (nid, provider, subject);

-- Info: several parts beyond the key.
CREATE TABLE slugs (
    org_id bigint NOT NULL,
    kind text NOT NULL,
    slug text NOT NULL
);
CREATE UNIQUE INDEX slugs_slug ON slugs (slug);
DROP INDEX slugs_slug; -- want: unique-dropped "uniqueness narrowed to per-\(org_id, kind\), so two slugs with the same slug and different org_id or kind are both accepted"
CREATE UNIQUE INDEX slugs_org_kind_slug ON slugs (org_id, kind, slug);

-- Silent: a part pinned to one value by the predicate narrows nothing.
CREATE TABLE domains (
    host text NOT NULL,
    verified boolean NOT NULL
);
CREATE UNIQUE INDEX domains_host ON domains (host) WHERE verified = true;
DROP INDEX domains_host;
CREATE UNIQUE INDEX domains_host_verified ON domains (host, verified) WHERE verified = true;
