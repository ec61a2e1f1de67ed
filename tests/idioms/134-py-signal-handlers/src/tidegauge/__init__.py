"""A tide gauge's recording daemon: samples water levels, reloads its
settings on SIGHUP, dumps its counters on SIGUSR1, stops on SIGTERM."""
