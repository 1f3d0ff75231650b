// reachable/weighted: same subnet first, then private-to-private or
// public-to-public, then the rest; within a tier physical and fast links
// first, bridges last; no carrier divides by four.
#include "weighted_ranker.h"

#include <sys/socket.h>

#include <cstdio>
#include <string>

namespace orca::reach::weighted {

orca_mca_rc rank(const orca_reach_query& q, orca_reach_verdict* verdicts) {
  const bool reasons = q.omit_reasons == 0;
  for (size_t l = 0; l < q.n_locals; ++l) {
    const orca_reach_endpoint& local = q.locals[l];
    const net::IpAddress la = address_of(local);
    for (size_t r = 0; r < q.n_remotes; ++r) {
      orca_reach_verdict& v = verdicts[l * q.n_remotes + r];
      if (v.weight != ORCA_REACH_UNDECIDED) continue;
      const net::IpAddress ra = address_of(q.remotes[r]);
      int tier;
      std::string why;
      if (net::same_subnet(la, ra, local.prefix_length)) {
        tier = kSameSubnet;
        if (reasons) why = "same subnet " + net::IpPrefix(la, local.prefix_length).to_string();
      } else if (la.is_link_local()) {
        tier = kLinkLocal;
        why = "link-local: works only if on the same link";
      } else if (la.is_private() == ra.is_private()) {
        tier = kSameScope;
        why = la.is_private() ? "both private, different subnets" : "both public";
      } else {
        tier = kMixedScope;
        why = "one private and one public address";
      }
      std::string link_why;
      int weight = tier + link_bonus(local, q.remotes[r], reasons ? &link_why : nullptr);
      if (!local.running) weight /= 4;
      v.weight = weight;
      if (!reasons) continue;
      why += "; " + link_why;
      if (!local.running) why += "; no carrier on " + std::string(local.if_name ? local.if_name : "?");
      std::snprintf(v.reason, sizeof v.reason, "%s", why.c_str());
    }
  }
  return ORCA_MCA_OK;
}

}  // namespace orca::reach::weighted
