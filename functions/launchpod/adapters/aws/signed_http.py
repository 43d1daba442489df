"""HTTPS to the AWS APIs boto3 has no client for (Amazon Managed Service for Prometheus' query API, SageMaker
managed MLflow's REST API): each request signed with Signature Version 4 for its service with the caller's
credentials, as boto3 signs its own calls
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html)."""

from __future__ import annotations

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.exceptions import BotoCoreError
from botocore.httpsession import URLLib3Session

from launchpod.domain.errors import RetryableError


class SignedHttp:
    def __init__(self, service: str, timeout: int) -> None:
        self.service = service
        self._http = URLLib3Session(timeout=timeout)

    def send(self, request: AWSRequest, region: str, what: str) -> tuple[int, str]:
        """The answer's status and text. No answer at all (a connection error or a timeout) is a RetryableError
        naming ``what``; what an answer means is the caller's."""
        try:
            SigV4Auth(boto3.Session().get_credentials(), self.service, region).add_auth(request)
            response = self._http.send(request.prepare())
        except BotoCoreError as exc:
            raise RetryableError(f"{what} did not answer: {exc}.") from exc
        return response.status_code, response.content.decode(errors="replace")
