/*
 * oob/null: the smallest out-of-tree oob component, in plain C, built only
 * against Orca's installed headers and orca.pc (see Makefile).
 *
 * It starts, contributes "null=<greeting>" to the contact URI, reaches no
 * peer (every add_peer declines, so real components carry the traffic)
 * and refuses every send. Copy it as the skeleton of a new transport.
 */
#include <orca/mca_component.h>
#include <orca/oob.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct null_state {
    orca_oob_module module; /* the table the framework calls */
    char contact[128];
    int priority;
} null_state;

/* Designated initialisers: members left out are NULL or 0. Every numeric
 * variable declares its valid range; Orca refuses values outside it. */
static const orca_mca_var_decl null_vars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "1",
     .level = 9,
     .description = "Selection priority of oob/null (it reaches no peer)",
     .min_value = "-1000",
     .max_value = "1000"},
    {.name = "greeting",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "hello",
     .level = 9,
     .description = "Text put in this component's part of the contact URI"},
};

static orca_mca_rc null_start(void *self, const orca_oob_host *host, orca_mca_reason *why) {
    (void)self;
    (void)why;
    host->log(host->host, 10, "null: started (reaches no peer)");
    return ORCA_MCA_OK;
}

static const char *null_contact(void *self) { return ((null_state *)self)->contact; }

static orca_mca_rc null_add_peer(void *self, orca_process_name peer, const char *uri, orca_mca_reason *why) {
    (void)self;
    (void)peer;
    (void)uri;
    snprintf(why->text, sizeof why->text, "oob/null reaches no peer");
    return ORCA_MCA_DECLINED;
}

static orca_mca_rc null_send(void *self, orca_process_name peer, uint32_t tag, const uint8_t *data, size_t length,
                             orca_mca_reason *why) {
    (void)self;
    (void)peer;
    (void)tag;
    (void)data;
    (void)length;
    snprintf(why->text, sizeof why->text, "oob/null carries no message");
    return ORCA_MCA_FAILED;
}

static void null_describe(void *self, orca_process_name peer, char *buffer, size_t length) {
    (void)self;
    (void)peer;
    if (length > 0) buffer[0] = '\0';
}

static void null_stop(void *self) { (void)self; }

static orca_mca_rc null_register(orca_mca_registrar *registrar) {
    return orca_mca_declare_vars(registrar, null_vars, sizeof null_vars / sizeof null_vars[0]);
}

static orca_mca_rc null_open(const orca_mca_context *context, void **state, orca_mca_reason *why) {
    null_state *s = calloc(1, sizeof *s);
    char greeting[64] = "";
    int64_t priority = 1;
    if (s == NULL) {
        snprintf(why->text, sizeof why->text, "out of memory");
        return ORCA_MCA_FAILED;
    }
    /* A failed read is an error, never a silent default. */
    if (context->get_int(context, "priority", &priority) != ORCA_MCA_OK ||
        context->get_text(context, "greeting", greeting, sizeof greeting) != ORCA_MCA_OK) {
        snprintf(why->text, sizeof why->text, "cannot read oob_null_priority or oob_null_greeting (longer than %zu bytes?)",
                 sizeof greeting - 1);
        free(s);
        return ORCA_MCA_FAILED;
    }
    s->priority = (int)priority;
    snprintf(s->contact, sizeof s->contact, "null=%s", greeting);
    s->module.self = s;
    s->module.interface_filter = NULL; /* it uses no network interface */
    s->module.start = null_start;
    s->module.contact = null_contact;
    s->module.add_peer = null_add_peer;
    s->module.send = null_send;
    s->module.send_shared = NULL; /* optional: the framework falls back to send */
    s->module.describe_peer = null_describe;
    s->module.stop = null_stop;
    s->module.forget_peer = NULL; /* optional: this module never connects */
    *state = s;
    return ORCA_MCA_OK;
}

static orca_mca_rc null_query(void *state, void **module, int *priority, orca_mca_reason *why) {
    null_state *s = state;
    (void)why;
    *module = &s->module;
    *priority = s->priority;
    return ORCA_MCA_OK;
}

static void null_close(void *state) { free(state); }

ORCA_COMPONENT_EXPORT const orca_mca_component mca_oob_null_component = {
    ORCA_MCA_COMPONENT_ABI_VERSION, "oob", ORCA_OOB_INTERFACE_VERSION, "null", 1, 0, 0,
    "An example out-of-tree component that reaches no peer",
    null_register, null_open, null_query, null_close};
