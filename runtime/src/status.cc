#include <cstdarg>
#include <cstdio>

#include "pocketmt/translator.h"

namespace pmt {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kBadModel: return "bad model";
    case ErrorCode::kLimitExceeded: return "limit exceeded";
    case ErrorCode::kInvalidUtf8: return "invalid UTF-8";
    case ErrorCode::kOutOfMemory: return "out of memory";
    case ErrorCode::kBackend: return "backend failure";
  }
  return "unknown error";
}

Status Status::error(ErrorCode code, const char* format, ...) {
  Status s;
  s.code_ = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(s.message_, sizeof(s.message_), format, args);
  va_end(args);
  return s;
}

}  // namespace pmt
