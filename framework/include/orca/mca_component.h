/*
 * The component ABI: the only thing that crosses the dlopen boundary.
 *
 * A component is a shared object named mca_<framework>_<component>.so that
 * exports exactly one C symbol, mca_<framework>_<component>_component, of
 * type orca_mca_component. Everything here is plain C: no C++ type and no
 * exception may cross this boundary, so a component built by another
 * compiler, or written in C, still loads.
 *
 * Lifecycle, driven by the framework base (see mca_framework.h):
 *   register_vars  declare MCA variables; nothing else. Tools such as
 *                  orca_info call only this, so it must have no side effects.
 *   open           read variables through the context, prepare; may return
 *                  per-component state (kept there, not in globals).
 *   query          return a module and a priority, or decline.
 *   close          release the state and every module query returned.
 * All calls happen on the thread that owns the process's event loop.
 *
 * The loader checks, before calling anything: abi_version equals
 * ORCA_MCA_COMPONENT_ABI_VERSION, and framework and name equal the parts of
 * the file name. A framework checks framework_version against its own
 * interface version.
 */
#ifndef ORCA_MCA_COMPONENT_H
#define ORCA_MCA_COMPONENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the descriptor symbol for export from a component built with
 * hidden visibility. */
#define ORCA_COMPONENT_EXPORT __attribute__((visibility("default")))

/* Bumped whenever any struct in this header changes layout or meaning.
 * 2: orca_mca_var_decl gained min_value and max_value; orca_mca_context
 *    gained process_role. */
#define ORCA_MCA_COMPONENT_ABI_VERSION 2u

/* What a process is, as components see it. */
typedef enum orca_process_role {
    ORCA_PROCESS_TOOL = 0,     /* orca_info and other tools: nothing runs */
    ORCA_PROCESS_LAUNCHER = 1, /* orcarun: vpid 0 of the daemon job */
    ORCA_PROCESS_DAEMON = 2,   /* orcad */
    ORCA_PROCESS_APPLICATION = 3 /* a program the daemons launched */
} orca_process_role;

/* Outcome of a component call. */
typedef enum orca_mca_rc {
    ORCA_MCA_OK = 0,       /* done */
    ORCA_MCA_DECLINED = 1, /* the component chooses not to run here (not an error) */
    ORCA_MCA_FAILED = 2    /* the component could not do what was asked */
} orca_mca_rc;

/* Why a component declined or failed: filled by the component, shown by
 * orca_info and at verbose level. Always NUL-terminated by the caller's
 * zero-initialisation; a component writes at most sizeof(text)-1 bytes. */
typedef struct orca_mca_reason {
    char text[256];
} orca_mca_reason;

/* Types of MCA variables. */
typedef enum orca_mca_var_type {
    ORCA_MCA_VAR_BOOL = 0,    /* 1/0, true/false, yes/no, on/off */
    ORCA_MCA_VAR_INT,         /* signed 64-bit */
    ORCA_MCA_VAR_UNSIGNED,    /* unsigned 64-bit */
    ORCA_MCA_VAR_SIZE,        /* bytes, with optional k/M/G/T suffix (binary) */
    ORCA_MCA_VAR_DOUBLE,      /* finite floating point */
    ORCA_MCA_VAR_STRING,      /* any text */
    ORCA_MCA_VAR_ENUM,        /* one word of enum_words */
    ORCA_MCA_VAR_STRING_LIST  /* comma-separated words */
} orca_mca_var_type;

/* Variable flags. */
#define ORCA_MCA_VAR_FLAG_NONE 0u
/* Only the environment and the command line may set it (it chooses files). */
#define ORCA_MCA_VAR_FLAG_NOT_FROM_FILES 1u

/* One variable declaration: a row in a component's table of variables.
 * The full name is <framework>_<component>_<name>. Strings must outlive the
 * call (string literals are the norm); the host copies what it keeps.
 * Write tables with designated initialisers ({.name = "retries", .type =
 * ORCA_MCA_VAR_INT, ...}): members left out are NULL or 0.
 *
 * Range: min_value and max_value are texts parsed by the variable's own
 * type ("1k" for a size), inclusive; NULL leaves that side unbounded. Every
 * numeric variable (INT, UNSIGNED, SIZE, DOUBLE) should declare one: the
 * host rejects a value outside it from every source (default, files,
 * environment, command line) with an error naming variable, source and
 * range, and orca_info shows it. A range on another type, a bound that does
 * not parse, min > max, or a default outside the range makes the
 * declaration fail. */
typedef struct orca_mca_var_decl {
    const char *name;               /* short name, [a-z0-9_]+ */
    orca_mca_var_type type;
    const char *default_value;      /* text, parsed like any other source; NULL = "" */
    int level;                      /* 1 (every user) .. 9 (developers) */
    const char *description;        /* one or two sentences */
    const char *const *enum_words;  /* NULL-terminated, ORCA_MCA_VAR_ENUM only */
    const char *const *synonyms;    /* NULL-terminated deprecated full names, or NULL */
    unsigned flags;                 /* ORCA_MCA_VAR_FLAG_* */
    const char *min_value;          /* lowest valid value, inclusive; NULL: no lower bound */
    const char *max_value;          /* highest valid value, inclusive; NULL: no upper bound */
} orca_mca_var_decl;

/* Handed to register_vars; declare_var records one variable for the calling
 * component. On ORCA_MCA_FAILED the host keeps the reason; the component
 * should return ORCA_MCA_FAILED from register_vars. */
typedef struct orca_mca_registrar orca_mca_registrar;
struct orca_mca_registrar {
    void *host; /* opaque to components */
    orca_mca_rc (*declare_var)(orca_mca_registrar *self, const orca_mca_var_decl *decl);
};

/* Declares every row of a component's variable table; the usual body of
 * register_vars. */
static inline orca_mca_rc orca_mca_declare_vars(orca_mca_registrar *registrar, const orca_mca_var_decl *decls,
                                                size_t count) {
    for (size_t i = 0; i < count; ++i) {
        if (registrar->declare_var(registrar, &decls[i]) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
    }
    return ORCA_MCA_OK;
}

/* Handed to open: how a component reads the values of variables. The
 * context is valid only during the call; copy what you keep. */
typedef struct orca_mca_context orca_mca_context;
struct orca_mca_context {
    void *host; /* opaque to components */
    /* The value of `name` in canonical text (what --mca would accept).
     * `name` is the component's own short name ("priority" for
     * <framework>_<component>_priority) or a full variable name. Writes at
     * most `length` bytes including the NUL. ORCA_MCA_FAILED when no such
     * variable exists or the buffer is too small. */
    orca_mca_rc (*get_text)(const orca_mca_context *self, const char *name, char *buffer, size_t length);
    /* The value of a bool (0/1), int, unsigned or size variable.
     * ORCA_MCA_FAILED when no such variable exists, it has another type, or
     * an unsigned or size value exceeds INT64_MAX; *value is then unchanged.
     * Treat a failure as an error, never as 0. */
    orca_mca_rc (*get_int)(const orca_mca_context *self, const char *name, int64_t *value);
    /* <framework>_base_verbose */
    int verbosity;
    /* What this process is (orca_process_role): a component may behave
     * differently in a launcher than in a tool that only lists it. */
    int process_role;
};

/* The descriptor a component exports as mca_<framework>_<component>_component. */
typedef struct orca_mca_component {
    uint32_t abi_version;        /* ORCA_MCA_COMPONENT_ABI_VERSION */
    const char *framework;       /* e.g. "oob" */
    uint32_t framework_version;  /* the framework's interface version it implements */
    const char *name;            /* e.g. "tcp" */
    uint32_t version_major;
    uint32_t version_minor;
    uint32_t version_patch;
    const char *description;     /* one line */

    /* May be NULL when the component has no variables. */
    orca_mca_rc (*register_vars)(orca_mca_registrar *registrar);
    /* May be NULL. *state is handed to query and close. */
    orca_mca_rc (*open)(const orca_mca_context *context, void **state, orca_mca_reason *why);
    /* Required. *module is the framework-specific module; it stays valid
     * until close. A higher priority wins where one module is selected. */
    orca_mca_rc (*query)(void *state, void **module, int *priority, orca_mca_reason *why);
    /* May be NULL. Called once for every successful open. */
    void (*close)(void *state);
} orca_mca_component;

#ifdef __cplusplus
}
#endif

#endif /* ORCA_MCA_COMPONENT_H */
