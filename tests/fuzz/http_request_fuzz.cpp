// The /metrics server's request parser (telemetry/http_request.h) on
// arbitrary bytes, read the way a connection reads them: pipelined heads one
// after another, each either complete, refused with a status or waiting for
// more. Invariants: progress (a parsed head consumes bytes), no read past
// the input, a status only with a reason, a path only for accepted heads.
#include "telemetry/http_request.h"
#include "fuzz_input.h"

using rooftop::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in = rooftop::fuzz::text(data, size);
  const std::size_t cap = 1024;
  while (!in.empty()) {
    auto head = rooftop::telemetry::parse_request_head(in, cap);
    if (!head) {
      check(in.size() <= cap, "an incomplete head over the cap must be refused");
      break;
    }
    check(head->consumed > 0 && head->consumed <= in.size(), "a head consumes 1..size bytes");
    if (head->status) {
      check(head->status >= 400 && head->status < 600 && !head->reason.empty(), "a refusal has a 4xx/5xx and a reason");
      check(head->close_after, "a refusal closes the connection");
      break;  // the server closes after a refusal
    }
    check(!head->path.empty() && head->path[0] == '/', "an accepted head has an absolute path");
    check(head->path.find('?') == std::string::npos, "the path carries no query");
    in.remove_prefix(head->consumed);
  }
  return 0;
}
