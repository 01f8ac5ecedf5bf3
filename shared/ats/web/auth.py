"""Sign-in with throttling per user name and per client address (iam, in the database)."""

from __future__ import annotations

import datetime
import math
from typing import Any

from django import forms
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse

from ats.iam import api as iam_api
from ats.web.access import public


def client_ip(request: HttpRequest) -> str | None:
    # REMOTE_ADDR only: X-Forwarded-For is client-controlled unless a trusted proxy
    # rewrites it, and a spoofable key would let an attacker dodge the per-IP limit.
    return request.META.get("REMOTE_ADDR") or None


def wait_words(wait: datetime.timedelta) -> str:
    """A wait in plain words, rounded up to what a person can act on."""
    seconds = max(1, math.ceil(wait.total_seconds()))
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class ThrottledAuthenticationForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed sign-ins from here. Try again in %(wait)s.",
    }
    wait: datetime.timedelta | None = None

    def clean(self) -> dict[str, Any]:
        username = (self.data.get("username") or "").strip()
        ip = client_ip(self.request) if self.request else None
        wait = iam_api.login_wait(username=username, ip=ip)
        if wait is not None:
            # Checked before the password: a throttled guess learns nothing, right or wrong.
            self.wait = wait
            raise forms.ValidationError(
                self.error_messages["throttled"], code="throttled", params={"wait": wait_words(wait)}
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            iam_api.login_attempt_record(username=username, ip=ip, succeeded=False)
            raise
        iam_api.login_attempt_record(username=username, ip=ip, succeeded=True)
        return cleaned


class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if form.wait is not None:
            response.status_code = 429
            response["Retry-After"] = str(max(1, math.ceil(form.wait.total_seconds())))
        return response


login = public("the sign-in form itself")(LoginView.as_view())
logout = public("signing out needs no permission (POST + CSRF)")(auth_views.LogoutView.as_view())
