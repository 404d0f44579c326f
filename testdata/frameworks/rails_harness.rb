# Test harness for idemcheck's schema.rb differential: loads a schema.rb into
# PostgreSQL with the ActiveRecord that Debian ships (6.1), or runs a fix's
# migration class against it.
#
#   ruby rails_harness.rb load SCHEMA_RB DATABASE_URL
#   ruby rails_harness.rb migrate DATABASE_URL MIGRATION_RB [DATABASE_URL MIGRATION_RB ...]
#   ruby rails_harness.rb structure SCHEMA_RB DATABASE_URL STRUCTURE_SQL
#     (loads the schema, then writes db/structure.sql as
#     `bin/rails db:schema:dump` does with schema_format :sql)
#
# Dumps of Rails 7.1 and later use constructs ActiveRecord 6.1 lacks. The
# shims below give them the meaning the newer Rails gives them, in SQL, and
# nothing more. Not shimmed (no schema here needs them): exclusion
# constraints, Rails 8's virtual columns without stored: true.
require "active_record"
require "active_record/connection_adapters/postgresql_adapter"

ActiveRecord::Migration.verbose = false

module IdemcheckShims
  def self.quote(name)
    ActiveRecord::Base.connection.quote_table_name(name)
  end

  # ActiveRecord::Schema[7.1] (Rails 7.0 and later) is Schema itself here.
  module VersionedSchema
    def [](_version)
      self
    end
  end

  # Migration[7.1] and later behave as Migration[6.1] here.
  module VersionedMigration
    def [](version)
      Gem::Version.new(version.to_s) > Gem::Version.new("6.1") ? super(6.1) : super
    end
  end

  # add_index with include: and nulls_not_distinct: (Rails 7.1), which 6.1
  # refuses; the SQL is what Rails 7.1 sends.
  module Indexes
    def add_index(table, columns, **options)
      extra = options.slice(:include, :nulls_not_distinct)
      return super if extra.empty?
      options = options.except(:include, :nulls_not_distinct)
      name = options[:name] || index_name(table, columns)
      cols = columns.is_a?(String) && columns =~ /\W/ ? columns : Array(columns).map { |c| quote_column_name(c) }.join(", ")
      sql = +"CREATE #{'UNIQUE ' if options[:unique]}INDEX #{'CONCURRENTLY ' if options[:algorithm] == :concurrently}"
      sql << "#{quote_column_name(name)} ON #{quote_table_name(table)} "
      sql << "USING #{options[:using]} " if options[:using]
      sql << "(#{cols})"
      sql << " INCLUDE (#{Array(extra[:include]).map { |c| quote_column_name(c) }.join(', ')})" if extra[:include]
      sql << " NULLS NOT DISTINCT" if extra[:nulls_not_distinct]
      sql << " WHERE #{options[:where]}" if options[:where]
      execute sql
    end

    # ActiveRecord 6.1 cannot read back an index built NULLS NOT DISTINCT
    # (its index parser fails on it), which remove_index does to find the
    # index from its columns; Rails 7.1 reads it. A name is enough to find
    # the index.
    def index_name_for_remove(table_name, column_name, options)
      options[:name] ? options[:name].to_s : super
    end

    # create_enum (Rails 7.0).
    def create_enum(name, values)
      execute "CREATE TYPE #{quote_table_name(name)} AS ENUM (#{values.map { |v| quote(v) }.join(', ')})"
    end

    # enable_extension "schema.name" (Rails 8 dumps).
    def enable_extension(name, **)
      super(name.to_s.split(".").last)
    end

    # create_view (the scenic gem).
    def create_view(name, sql_definition:, **)
      execute "CREATE VIEW #{quote_table_name(name)} AS #{sql_definition}"
    end

    # add_unique_constraint (Rails 7.1).
    def add_unique_constraint(table, columns, name:, deferrable: nil, nulls_not_distinct: nil, **)
      sql = +"ALTER TABLE #{quote_table_name(table)} ADD CONSTRAINT #{quote_column_name(name)} UNIQUE"
      sql << " NULLS NOT DISTINCT" if nulls_not_distinct
      sql << " (#{Array(columns).map { |c| quote_column_name(c) }.join(', ')})"
      sql << " DEFERRABLE INITIALLY #{deferrable.to_s.upcase}" if deferrable
      execute sql
    end

    # t.unique_constraint inside create_table (Rails 7.1) is added right
    # after the table.
    def create_table(table, **options, &block)
      pending = []
      super(table, **options) do |t|
        t.define_singleton_method(:unique_constraint) { |cols, **o| pending << [cols, o] }
        t.define_singleton_method(:enum) { |name, enum_type:, **o| column(name, enum_type, **o) }
        t.define_singleton_method(:virtual) do |name, type:, as:, stored: false, **o|
          column(name, "#{type_to_sql(type)} GENERATED ALWAYS AS (#{as}) STORED", **o)
        end
        block&.call(t)
      end
      pending.each { |cols, o| add_unique_constraint(table, cols, **o) }
    end
  end
end

ActiveRecord::Schema.singleton_class.prepend(IdemcheckShims::VersionedSchema)
ActiveRecord::Migration.singleton_class.prepend(IdemcheckShims::VersionedMigration)
ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.prepend(IdemcheckShims::Indexes)
ActiveRecord::ConnectionAdapters::TableDefinition.class_eval do
  def type_to_sql(type)
    ActiveRecord::Base.connection.type_to_sql(type)
  end
end

case ARGV[0]
when "load"
  # An app's own inflections (config/initializers/inflections.rb) decide the
  # column add_foreign_key infers; a real schema may come with them, as
  # NAME.inflections.rb beside NAME_schema.rb.
  inflections = ARGV[1].sub(/_?schema\.rb\z/, "") + ".inflections.rb"
  load inflections if inflections != ARGV[1] && File.exist?(inflections)
  ActiveRecord::Base.establish_connection(ARGV[2])
  load ARGV[1]
when "structure"
  ActiveRecord::Base.establish_connection(ARGV[2])
  load ARGV[1]
  config = ActiveRecord::Base.connection_db_config
  ActiveRecord::Tasks::DatabaseTasks.structure_dump(config, ARGV[3])
when "migrate"
  # Each migration runs on its own database, in one process: starting Ruby
  # and ActiveRecord costs more than the migrations.
  failed = false
  ARGV.drop(1).each_slice(2) do |url, file|
    ActiveRecord::Base.establish_connection(url)
    source = File.read(file)
    name = source[/^class (\w+) </, 1] or abort "#{file}: no migration class"
    Object.send(:remove_const, name) if Object.const_defined?(name)
    eval(source, TOPLEVEL_BINDING, file)
    begin
      Object.const_get(name).new.migrate(:up)
      puts "ok #{file}"
    rescue StandardError => e
      failed = true
      puts "failed #{file}: #{e.class}: #{e.message}"
    end
  end
  exit(failed ? 1 : 0)
else
  abort "usage: ruby rails_harness.rb load|migrate FILE DATABASE_URL"
end
