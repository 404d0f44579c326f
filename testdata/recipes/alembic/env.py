# Offline only: `alembic upgrade head --sql` renders the migrations as SQL
# without connecting, which is what idemcheck lints.
from alembic import context

context.configure(url=context.config.get_main_option("sqlalchemy.url"), literal_binds=True)
with context.begin_transaction():
    context.run_migrations()
