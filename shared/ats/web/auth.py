"""Sign-in with throttling per user name and per client address (iam, in the database)."""

from __future__ import annotations

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


class ThrottledAuthenticationForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed sign-ins. Wait 15 minutes and try again.",
    }

    def clean(self) -> dict[str, Any]:
        username = (self.data.get("username") or "").strip()
        ip = client_ip(self.request) if self.request else None
        if iam_api.login_blocked(username=username, ip=ip):
            # Checked before the password: a throttled guess learns nothing, right or wrong.
            self.throttled = True
            raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
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
        if getattr(form, "throttled", False):
            response.status_code = 429
        return response


login = public("the sign-in form itself")(LoginView.as_view())
logout = public("signing out needs no permission (POST + CSRF)")(auth_views.LogoutView.as_view())
