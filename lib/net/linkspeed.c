// SPDX-License-Identifier: MIT
/*
 * linkspeed.c - the link speed behind a local address (linkspeed.h).
 */
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "lib/core/sysinfo.h"
#include "linkspeed.h"

/* /sys/class/net/@name/speed in Mbit/s; 0 when absent or unknown (-1). */
static int64_t sysfs_speed_mbps(const char *name)
{
	char path[64 + IF_NAMESIZE], text[32];
	long long mbps;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", name);
	if (ep_read_first_line(path, text, sizeof(text)))
		return 0;
	mbps = strtoll(text, NULL, 10);
	return mbps > 0 ? mbps : 0;
}

int64_t ep_link_speed_bps(const struct sockaddr_storage *local)
{
	struct ifaddrs *list, *ifa;
	int64_t mbps = 0;

	if (getifaddrs(&list))
		return 0;
	for (ifa = list; ifa; ifa = ifa->ifa_next) {
		struct sockaddr_storage a;

		if (!ifa->ifa_addr || (ifa->ifa_addr->sa_family != AF_INET &&
				       ifa->ifa_addr->sa_family != AF_INET6))
			continue;
		memset(&a, 0, sizeof(a));
		memcpy(&a, ifa->ifa_addr, ifa->ifa_addr->sa_family == AF_INET
						  ? sizeof(struct sockaddr_in)
						  : sizeof(struct sockaddr_in6));
		if (ep_addr_same_host(&a, local)) {
			mbps = (ifa->ifa_flags & IFF_LOOPBACK) ? 0 : sysfs_speed_mbps(ifa->ifa_name);
			break;
		}
	}
	freeifaddrs(list);
	return mbps * 1000000;
}
