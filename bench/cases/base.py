"""What every case has at hand: the binaries, the media, the report and a scratch directory."""

import os

from harness.processes import CaseFailure, stop_all


class BenchBase:
    def __init__(self, arguments, media, report, scratch):
        self.mediad = os.path.join(arguments.bin_dir, "mediad")
        self.engine = os.path.join(arguments.bin_dir, "mediad-bench")
        self.smoke = arguments.smoke
        self.runs = 1 if arguments.smoke else arguments.runs
        self.media = media
        self.report = report
        self.scratch = scratch

    def case(self, name, body):
        try:
            body()
        except Exception as error:  # any failure of one case is reported and the others still run
            self.report.fail(name, error if isinstance(error, CaseFailure) else repr(error))
        finally:
            stop_all()
