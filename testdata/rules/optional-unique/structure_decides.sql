-- Structure decides before names. Each index here pairs an optional title
-- with a part whose name alone would read as an identity value; what the
-- schema says about that part makes it a scope, so rows without a title
-- have nothing to deduplicate.
CREATE TABLE repos (full_name text PRIMARY KEY);
CREATE TYPE plan_kind AS ENUM ('free', 'team', 'enterprise');
CREATE TABLE labels (
    id bigint PRIMARY KEY,
    repo text NOT NULL REFERENCES repos (full_name),
    plan plan_kind NOT NULL,
    grade text NOT NULL CHECK (grade IN ('a', 'b', 'c')),
    title text
);
-- A foreign key: repo references the parent row.
CREATE UNIQUE INDEX labels_repo_title ON labels (repo, title); -- want: optional-unique/info "title may be NULL, so labels without title are not deduplicated within repo"
-- An enum: plan is one of three kinds.
CREATE UNIQUE INDEX labels_plan_title ON labels (plan, title); -- want: optional-unique/info "within plan;"
-- A CHECK that lists the values: grade is one of three kinds.
CREATE UNIQUE INDEX labels_grade_title ON labels (grade, title); -- want: optional-unique/info "within grade;"
