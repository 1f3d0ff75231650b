/*
 * A DVM's contact file: how `orcarun --dvm` and `orcadvm status|stop`
 * find their user's running DVM and prove they may use it.
 *
 * Where: $XDG_RUNTIME_DIR/orca when XDG_RUNTIME_DIR is an absolute path,
 * else $HOME/.orca (dvm_contact_directory); one file a DVM, named
 * dvm.<pid of orcadvm>. Written with write_private_file (mode 0600, whole
 * or not at all), and read only when it is a regular file of this user
 * that no one else may read or write, of at most kMaxDvmContactBytes: it
 * holds the DVM's secret, and whoever reads it may run jobs there.
 *
 * Its text is one "key value" a line, every key once, in any order:
 *   orca-dvm 1        the format
 *   pid 4242          orcadvm's process id
 *   uri CONTACT       where submissions go (the controller's oob contact)
 *   secret HEX        the DVM's secret (oob::parse_job_secret)
 *   hosts 8           how many hosts its daemons run on
 *
 * A detached DVM (orcadvm start --daemonize) writes what it says after its
 * ready line to its log, the contact file's name with ".log" (mode 0600):
 * removed with the contact file when the DVM ends as asked (orcadvm stop,
 * its idle limit, a signal), kept when it ends by itself (no daemon left),
 * so that why is still there to read.
 */
#ifndef ORCA_LAUNCH_DVM_CONTACT_H
#define ORCA_LAUNCH_DVM_CONTACT_H

#include <orca/export.h>
#include <orca/result.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace orca::launch {

inline constexpr std::size_t kMaxDvmContactBytes = 4096;

struct ORCA_EXPORT DvmContact {
  pid_t pid = 0;
  std::string uri;
  std::string secret_hex;
  std::uint32_t hosts = 0;
  bool operator==(const DvmContact&) const = default;
};

/* Where this user's contact files are ("" when neither XDG_RUNTIME_DIR nor
 * HOME is an absolute path). `lookup` reads the environment. */
ORCA_EXPORT std::string dvm_contact_directory(const std::function<const char*(const char*)>& lookup);

ORCA_EXPORT std::string encode_dvm_contact(const DvmContact& contact);

/* Error: launch/dvm-contact-malformed (file, why): a line not "key value",
 * an unknown, repeated or missing key, a value out of range, a secret
 * oob::parse_job_secret refuses, a uri with blanks or control bytes. */
ORCA_EXPORT Result<DvmContact> parse_dvm_contact(std::string_view text, const std::string& file);

/* Writes `contact` as DIRECTORY/dvm.PID; returns that path. Error:
 * launch/dvm-contact-unwritable (file, why). */
ORCA_EXPORT Result<std::string> write_dvm_contact(const std::string& directory, const DvmContact& contact);

/* A detached DVM's log: `contact_file` with ".log". */
ORCA_EXPORT std::string dvm_log_path(const std::string& contact_file);

/* Errors: launch/dvm-contact-unreadable (file, why: missing, a link,
 * another user's, others may read it, too large); those of
 * parse_dvm_contact. */
ORCA_EXPORT Result<DvmContact> read_dvm_contact(const std::string& path);

/* The contact file of the one DVM of `directory` that runs: among the
 * files named dvm.PID, those whose PID `alive` says is running (a file
 * left by a DVM that died is passed over). Errors: launch/dvm-none-running
 * (directory), launch/dvm-several-running (directory, files). */
ORCA_EXPORT Result<std::string> find_running_dvm(const std::string& directory,
                                                 const std::function<bool(pid_t)>& alive);

/* The contact file a user named (--dvm-uri WORD, ORCA_DVM=WORD): WORD
 * itself when it is "file:PATH" (PATH), names a file that exists, or is no
 * contact URI; else WORD is a DVM's contact URI (the uri line of its
 * contact file), and the file is the one among the running DVMs' of
 * `directory` that holds it (the DVM's secret comes from there, never from
 * a command line). Errors: launch/dvm-uri-unknown (uri, directory) when no
 * running DVM there has that URI. */
ORCA_EXPORT Result<std::string> resolve_dvm_name(const std::string& word, const std::string& directory,
                                                 const std::function<bool(pid_t)>& alive);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_DVM_CONTACT_H
