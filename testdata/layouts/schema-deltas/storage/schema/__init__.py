# The version of the schema this code expects; the runner applies no delta above it.
SCHEMA_VERSION = 14
