"""Signs requests with botocore's own S3 SigV4 signers, as an oracle for mediad's signer.

Reads JSON from the file named by its argument: credentials, region, an ISO 8601 time and requests (method, host, the decoded path and
query, headers, body, and `expires` for a presigned URL); prints, for each request, the headers botocore adds
(header signing) or the presigned URL's query. The URL is encoded here the way botocore's S3 client encodes
keys (`quote` keeping `/` and `~`), so the encoding is the oracle's too."""
import datetime
import json
import sys
from unittest import mock
from urllib.parse import quote, urlsplit

from botocore import auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

with open(sys.argv[1], encoding="utf-8") as source:
    job = json.load(source)
credentials = Credentials(job["accessKeyID"], job["secretAccessKey"], job.get("sessionToken"))
moment = datetime.datetime.fromisoformat(job["time"].replace("Z", "+00:00"))
results = []
with mock.patch.object(auth, "get_current_datetime", return_value=moment):
    for item in job["requests"]:
        url = "http://" + item["host"] + quote(item["path"], safe="/~")
        if item["query"]:
            url += "?" + "&".join(quote(n, safe="~") + "=" + quote(v, safe="~") for n, v in item["query"])
        request = AWSRequest(method=item["method"], url=url, headers=item["headers"], data=item["body"].encode())
        if item.get("expires"):
            auth.S3SigV4QueryAuth(credentials, "s3", job["region"], expires=item["expires"]).add_auth(request)
            results.append({"query": urlsplit(request.url).query})
        else:
            auth.S3SigV4Auth(credentials, "s3", job["region"]).add_auth(request)
            results.append({"headers": {name: request.headers[name] for name in request.headers.keys()}})
json.dump(results, sys.stdout)
