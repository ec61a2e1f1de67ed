import sys

import click


def init_project(name, force):
    click.echo(f"Initializing project {name}")
    if not force and name.startswith("_"):
        click.secho("Refusing to create a private project %s" % name, fg="red", err=True)
        sys.exit("aborted: use --force to override")
    click.echo("Created %d files in ./%s" % (4, name))


def status(name, dirty):
    click.echo(click.style("On project ", bold=True) + name)
    if dirty:
        raise SystemExit(f"error: {dirty} uncommitted changes in {name}")
    click.echo("Nothing to do.")
