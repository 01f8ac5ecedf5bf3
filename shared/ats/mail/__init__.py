"""Mail intake channels (Microsoft Graph). Import from ``ats.mail.api`` / ``ats.mail.data``."""
