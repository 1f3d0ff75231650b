/*
 * Settings a launcher hands to its daemons.
 *
 * orcarun gathers settings from its defaults, files, environment and
 * command line; every daemon must resolve the same values, including for
 * components orcarun itself never loads. So what travels is the raw
 * settings (name, text, source), not resolved values: forwardable_settings()
 * picks, per name, the one setting that wins in the launcher's registry,
 * and a daemon adds them to its own registry, where they win the same way.
 *
 * The text form is one setting per line,
 *   <name> <source kind> <order> <line> <file> <value>
 * after a first line "orca-settings 1". Fields are separated by one space;
 * '%', space, tab, CR, LF and every other control byte inside a field are
 * written %XX, so any value (spaces, commas, quotes, newlines) survives.
 * An empty file or value is "%". Parsing is strict: a wrong field count,
 * an unknown kind, a bad number or a bad escape is an error naming the
 * line. Nothing in it is a secret: the job secret never travels here.
 */
#ifndef ORCA_MCA_VAR_MCA_FORWARD_H
#define ORCA_MCA_VAR_MCA_FORWARD_H

#include <orca/export.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::mca {

/* Per setting name, the one setting that wins in `registry` (by source
 * kind, then file order, then arrival), in first-arrival order of names.
 * Defaults are not settings and are not included. */
ORCA_EXPORT std::vector<Setting> forwardable_settings(const Registry& registry);

/* The text form above. */
ORCA_EXPORT std::string encode_settings(const std::vector<Setting>& settings);

/* Parses the text form. Errors: not this format, a malformed line (named
 * by number). At most kMaxForwardedSettings lines. */
inline constexpr size_t kMaxForwardedSettings = 100000;
ORCA_EXPORT Result<std::vector<Setting>> decode_settings(std::string_view text);

}  // namespace orca::mca

#endif  // ORCA_MCA_VAR_MCA_FORWARD_H
