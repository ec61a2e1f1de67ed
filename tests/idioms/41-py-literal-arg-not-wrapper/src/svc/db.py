import logging

log = logging.getLogger(__name__)


def connect(host):
    log.info("Connecting to database at " + host)


def use_schema(schema):
    log.info("Using schema %s", schema)


def migrate(version):
    log.info(f"Migrating to version {version}")


def startup():
    connect("localhost")
    use_schema("public")
    migrate("2024.1")
    log.info("Startup complete")
