"""Inbound channels that feed the intake chain; today the Microsoft Graph mailbox."""
