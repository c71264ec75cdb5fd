// SPDX-License-Identifier: GPL-2.0
/*
 * notify_client TRIGGER COUNT: a client of lttng-tools' notification API
 * (liblttng-ctl).  It subscribes to the condition of the trigger named
 * TRIGGER, prints "ready", then prints one line per notification received
 * until COUNT were, with the captured values in order:
 *   notification: u:N s:N str:TEXT [u:N ...] unavailable
 * It exits 0 after COUNT notifications, 1 on an error, and 2 when no
 * notification came for 30 s (SIGALRM).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lttng/lttng.h>

static void print_value(const struct lttng_event_field_value *v);

/* Each element of the array @v, " unavailable" for a missing one. */
static void print_elements(const struct lttng_event_field_value *v)
{
	const struct lttng_event_field_value *e;
	unsigned int i, n;

	if (lttng_event_field_value_array_get_length(v, &n) !=
	    LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
		return;
	for (i = 0; i < n; i++) {
		if (lttng_event_field_value_array_get_element_at_index(v, i, &e) ==
		    LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
			print_value(e);
		else
			printf(" unavailable");
	}
}

static void print_value(const struct lttng_event_field_value *v)
{
	const char *s;
	uint64_t u;
	int64_t d;

	switch (lttng_event_field_value_get_type(v)) {
	case LTTNG_EVENT_FIELD_VALUE_TYPE_UNSIGNED_INT:
		lttng_event_field_value_unsigned_int_get_value(v, &u);
		printf(" u:%llu", (unsigned long long)u);
		break;
	case LTTNG_EVENT_FIELD_VALUE_TYPE_SIGNED_INT:
		lttng_event_field_value_signed_int_get_value(v, &d);
		printf(" s:%lld", (long long)d);
		break;
	case LTTNG_EVENT_FIELD_VALUE_TYPE_STRING:
		lttng_event_field_value_string_get_value(v, &s);
		printf(" str:%s", s);
		break;
	case LTTNG_EVENT_FIELD_VALUE_TYPE_ARRAY:
		printf(" [");
		print_elements(v);
		printf(" ]");
		break;
	default:
		printf(" type%d", lttng_event_field_value_get_type(v));
	}
}

static void timeout(int sig)
{
	(void)sig;
	fprintf(stderr, "notify_client: no notification for 30 s\n");
	_exit(2);
}

int main(int argc, char **argv)
{
	const struct lttng_event_field_value *vals;
	const struct lttng_condition *cond = NULL;
	struct lttng_notification_channel *ch;
	struct lttng_notification *notif;
	enum lttng_notification_channel_status st;
	struct lttng_triggers *triggers;
	const struct lttng_trigger *t;
	unsigned int i, n, got = 0, want;
	const char *name;

	if (argc != 3) {
		fprintf(stderr, "usage: notify_client TRIGGER COUNT\n");
		return 1;
	}
	want = atoi(argv[2]);
	if (lttng_list_triggers(&triggers) != LTTNG_OK ||
	    lttng_triggers_get_count(triggers, &n) != LTTNG_TRIGGER_STATUS_OK) {
		fprintf(stderr, "notify_client: cannot list the triggers\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		t = lttng_triggers_get_at_index(triggers, i);
		if (lttng_trigger_get_name(t, &name) == LTTNG_TRIGGER_STATUS_OK &&
		    !strcmp(name, argv[1]))
			cond = lttng_trigger_get_const_condition(t);
	}
	if (!cond) {
		fprintf(stderr, "notify_client: no trigger named %s\n", argv[1]);
		return 1;
	}
	ch = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
	if (!ch || lttng_notification_channel_subscribe(ch, cond) !=
		   LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
		fprintf(stderr, "notify_client: cannot subscribe\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	signal(SIGALRM, timeout);
	while (got < want) {
		alarm(30);
		st = lttng_notification_channel_get_next_notification(ch, &notif);
		if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
			printf("dropped\n");
			continue;
		}
		if (st != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
			fprintf(stderr, "notify_client: status %d\n", st);
			return 1;
		}
		printf("notification:");
		if (lttng_evaluation_event_rule_matches_get_captured_values(
			    lttng_notification_get_evaluation(notif), &vals) ==
		    LTTNG_EVALUATION_EVENT_RULE_MATCHES_STATUS_OK)
			print_elements(vals);
		printf("\n");
		fflush(stdout);
		lttng_notification_destroy(notif);
		got++;
	}
	lttng_notification_channel_destroy(ch);
	lttng_triggers_destroy(triggers);
	return 0;
}
