import logging

from .parse import ConfigError, parse_host, parse_mode, parse_port

log = logging.getLogger(__name__)


class Loader:
    def load(self, host, port, mode):
        log.info("Loading config for %s", host)
        try:
            parse_port(port)
        except ValueError as e:
            log.exception(e)
        try:
            parse_host(host)
        except ConfigError as e:
            log.error(str(e))
        try:
            parse_mode(mode)
        except ConfigError as e:
            log.warning(e.args[0])
        log.info("Config for %s loaded", host)
