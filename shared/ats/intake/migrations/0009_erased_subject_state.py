# The erased_subject terminal state (issue 16: retention and erasure).

import ats.intake.states
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('intake', '0008_parse_submit_schema3'),
    ]

    operations = [
        migrations.AlterField(
            model_name='attachment',
            name='state',
            field=models.CharField(choices=[('received', 'Received, waiting for checks'), ('scanning', 'Being checked for malware'), ('promoted', 'Clean, waiting to be read'), ('parsed', 'Read, creating the candidate'), ('candidate_created', 'Candidate created'), ('duplicate', 'Same file as an earlier document'), ('rejected_empty', 'Empty file'), ('rejected_too_large', 'File too large'), ('rejected_unsupported_type', 'Unsupported file type'), ('blocked_malware', 'Blocked: malware detected'), ('scan_failed', 'Malware scan failed; blocked from reading'), ('parse_failed', 'Could not read the document'), ('candidate_failed', 'Could not create the candidate'), ('discarded', 'Discarded by a recruiter'), ('erased_subject', "Sender's personal data was erased on request")], db_index=True, default=ats.intake.states.State['RECEIVED'], max_length=32),
        ),
    ]
