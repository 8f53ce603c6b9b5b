"""The benchmark cases, one module per case or family of cases. `Bench` has each case as a method named as
`--cases` names it: `bench.remux()`, `bench.status_api()`, …"""

from cases.base import BenchBase
from cases.database import DatabaseCases
from cases.encode import EncodeCases
from cases.jobs import JobCases
from cases.objects import ObjectCases
from cases.package import PackageCases
from cases.remux import RemuxCases
from cases.staging import StagingCases
from cases.status_api import StatusAPICases
from cases.thumbnails import ThumbnailsCases
from cases.transcode import TranscodeCases
from cases.upload import UploadCases


class Bench(BenchBase, RemuxCases, PackageCases, EncodeCases, UploadCases, JobCases, StatusAPICases,
            TranscodeCases, ThumbnailsCases, DatabaseCases, ObjectCases,
            StagingCases):
    """Every case, run against the binaries in `--bin-dir` on the media of `Media`."""
