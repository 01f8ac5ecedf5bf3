# Retention and erasure tables (issue 16): due dates, erasures, tombstones, purge runs, retention_action.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Erasure',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('candidate_id', models.BigIntegerField(db_index=True)),
                ('candidate_ids', models.JSONField(default=list)),
                ('attachment_ids', models.JSONField(default=list)),
                ('application_ids', models.JSONField(default=list)),
                ('origin', models.CharField(choices=[('request', 'Request'), ('purge', 'Purge'), ('replay', 'Replay')], max_length=16)),
                ('state', models.CharField(choices=[('running', 'Running'), ('completed', 'Completed')], default='running', max_length=16)),
                ('actor', models.CharField(max_length=128)),
                ('reason', models.TextField()),
                ('steps', models.JSONField(default=list)),
                ('purged_blobs', models.JSONField(default=list)),
                ('requested_at', models.DateTimeField(auto_now_add=True)),
                ('completed_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'db_table': 'retention_erasure',
            },
        ),
        migrations.CreateModel(
            name='PurgeRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('started_at', models.DateTimeField(auto_now_add=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('state', models.CharField(choices=[('running', 'Running'), ('completed', 'Completed'), ('halted', 'Halted')], default='running', max_length=16)),
                ('job_id', models.BigIntegerField(blank=True, null=True)),
                ('due_count', models.PositiveIntegerField(default=0)),
                ('done_count', models.PositiveIntegerField(default=0)),
                ('resumed_from', models.BigIntegerField(blank=True, null=True)),
                ('halted_at', models.BigIntegerField(blank=True, null=True)),
                ('error', models.TextField(blank=True, default='')),
            ],
            options={
                'db_table': 'retention_purge_run',
            },
        ),
        migrations.CreateModel(
            name='PurgeVerification',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('ran_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('ok', models.BooleanField()),
                ('checked', models.PositiveIntegerField()),
                ('still_present', models.JSONField(default=list)),
            ],
            options={
                'db_table': 'retention_purge_verification',
            },
        ),
        migrations.CreateModel(
            name='RetentionSubject',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('candidate_id', models.BigIntegerField(unique=True)),
                ('last_activity_at', models.DateTimeField()),
                ('consent_until', models.DateField(blank=True, null=True)),
                ('legal_hold', models.BooleanField(default=False)),
                ('due_on', models.DateField(blank=True, db_index=True, null=True)),
                ('recomputed_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'db_table': 'retention_subject',
            },
        ),
        migrations.CreateModel(
            name='RetentionAction',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('candidate_id', models.BigIntegerField(db_index=True)),
                ('step', models.CharField(max_length=32)),
                ('outcome', models.CharField(max_length=16)),
                ('detail', models.JSONField(default=dict)),
                ('at', models.DateTimeField(auto_now_add=True)),
                ('erasure', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='actions', to='retention.erasure')),
                ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='actions', to='retention.purgerun')),
            ],
            options={
                'db_table': 'retention_action',
            },
        ),
        migrations.CreateModel(
            name='Tombstone',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('digest', models.CharField(max_length=64, unique=True)),
                ('kind', models.CharField(max_length=8)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('lifted_at', models.DateTimeField(blank=True, null=True)),
                ('lifted_by', models.CharField(blank=True, default='', max_length=128)),
                ('erasure', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='tombstones', to='retention.erasure')),
            ],
            options={
                'db_table': 'retention_tombstone',
            },
        ),
    ]
