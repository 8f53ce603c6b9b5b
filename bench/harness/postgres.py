"""A PostgreSQL server of the harness's own, for the database case: never the system's cluster or service."""

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile

from harness.processes import CaseFailure, cleanups, free_port

# The login mediad connects as, with a password over TCP (SCRAM, as a deployment would), and its database.
USER = "mediad"
PASSWORD = "bench"
DATABASE = "mediad"


class Postgres:
    """A fresh cluster in a temporary directory under /tmp, on a free loopback port and a socket there.

    Made with the highest /usr/lib/postgresql/<version>/bin (`make postgres-deps` installs it without a main
    cluster). `initdb` refuses to run as root, so as root the server's programs run as `postgres` (runuser)
    in a directory that user owns. `pg_stat_statements` is preloaded and created in the database, so the
    case can count mediad's statements. Durability stays PostgreSQL's default (fsync and synchronous commit
    on), as mediad's filesystem store syncs its records too. `close` stops it (`pg_ctl stop -m fast`) and
    removes the directory; `stop_all` does the same if the case ends first.
    """

    def __init__(self):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                          key=lambda path: int(path.split("/")[-3]))
        if not versions:
            raise CaseFailure("PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb): "
                              "run `make postgres-deps`")
        self.binaries = os.path.dirname(versions[-1])
        self.dir = tempfile.mkdtemp(prefix="mediad-bench-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.running = False
        cleanups.append(self.close)
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.dir, account.pw_uid, account.pw_gid)
        self.as_owner("initdb", "-D", self.data, "-U", "postgres", "--auth-local=trust",
                      "--auth-host=scram-sha-256", "--no-sync", "--no-locale", "-E", "UTF8")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as config:
            config.write(f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                         f"unix_socket_directories = '{self.dir}'\nmax_connections = 100\n"
                         "shared_preload_libraries = 'pg_stat_statements'\n")
        try:
            self.as_owner("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"), "-w", "-t", "60",
                          "start")
        except CaseFailure as error:
            raise CaseFailure(f"PostgreSQL did not start: {error} {self.log()[-600:]}")
        self.running = True
        self.psql(f"CREATE ROLE {USER} LOGIN PASSWORD '{PASSWORD}'")
        self.psql(f"CREATE DATABASE {DATABASE} OWNER {USER}")
        self.psql("CREATE EXTENSION pg_stat_statements", DATABASE)

    @property
    def url(self):
        return f"postgres://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{DATABASE}?sslmode=disable"

    def as_owner(self, program, *arguments):
        """Runs one of PostgreSQL's programs as the owner of the directory and waits for it."""
        command = [os.path.join(self.binaries, program), *arguments]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if result.returncode != 0:
            raise CaseFailure(f"{program} exited {result.returncode}: {(result.stderr or result.stdout)[-600:]}")

    def psql(self, sql, database="postgres"):
        """Runs `sql` as the superuser over the socket; its rows, each a list of columns."""
        result = subprocess.run(
            [os.path.join(self.binaries, "psql"), "-h", self.dir, "-p", str(self.port), "-U", "postgres",
             "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-F", "\t", "-c", sql],
            stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if result.returncode != 0:
            raise CaseFailure(f"psql failed on {sql[:80]!r}: {result.stderr.strip()[-600:]}")
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def log(self):
        try:
            with open(os.path.join(self.dir, "server.log")) as file:
                return file.read()
        except OSError:
            return ""

    def close(self):
        if self.running:
            self.running = False
            try:
                self.as_owner("pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop")
            except CaseFailure:  # the postmaster did not stop: quit it without a checkpoint
                with open(os.path.join(self.data, "postmaster.pid")) as pid:
                    os.kill(int(pid.readline()), signal.SIGQUIT)
        if self.close in cleanups:
            cleanups.remove(self.close)
        shutil.rmtree(self.dir, ignore_errors=True)
