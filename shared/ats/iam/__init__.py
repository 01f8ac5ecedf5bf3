"""Identity and access: roles and the one authorisation check, `can(actor, action, obj)`."""
