// pocketmt._native: the compiled half of the `pocketmt` Python package, over the C++ API
// (pocketmt/translator.h, pocketmt/text_translator.h). The public API, its defaults and its
// generators live in pocketmt/__init__.py; this file converts arguments, releases the GIL while
// the runtime works and turns a pmt::Status into a Python exception.
//
// Threads: every call on a Translator releases the GIL, then takes the Translator's own mutex
// (the runtime serves one call at a time), so Python threads may share one Translator (calls
// queue) or translate in parallel on separate ones. The mutex is never waited for while the GIL
// is held, so the two cannot deadlock.
#include <pybind11/pybind11.h>

#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pocketmt/pmt.h"
#include "pocketmt/text_translator.h"
#include "pocketmt/translator.h"

namespace py = pybind11;

namespace {

// One exception class per pmt::ErrorCode (index = code), created at import.
PyObject* g_errors[8] = {};

[[noreturn]] void raise_status(const pmt::Status& status, const std::string& prefix = {}) {
  const auto code = static_cast<size_t>(status.code());
  PyErr_SetString(code < std::size(g_errors) && g_errors[code] ? g_errors[code] : g_errors[0],
                  (prefix + status.message()).c_str());
  throw py::error_already_set();
}

[[noreturn]] void raise_type_error(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw py::error_already_set();
}

std::string type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// A str, or bytes for input that is not valid text, must reach the runtime as its UTF-8 bytes:
// a str holding surrogate escapes (os.fsdecode, errors="surrogateescape") or lone surrogates is
// encoded so that the runtime sees, and reports, the invalid bytes itself. The view points into
// an object appended to `keep`, which must outlive it.
std::string_view utf8_view(PyObject* o, std::vector<py::object>* keep, const char* what) {
  Py_ssize_t size = 0;
  if (PyUnicode_Check(o)) {
    if (const char* data = PyUnicode_AsUTF8AndSize(o, &size)) {  // cached in the str: no copy
      keep->push_back(py::reinterpret_borrow<py::object>(o));
      return {data, static_cast<size_t>(size)};
    }
    PyErr_Clear();
    PyObject* bytes = PyUnicode_AsEncodedString(o, "utf-8", "surrogateescape");
    if (bytes == nullptr) {
      PyErr_Clear();
      bytes = PyUnicode_AsEncodedString(o, "utf-8", "surrogatepass");
      if (bytes == nullptr) throw py::error_already_set();
    }
    keep->push_back(py::reinterpret_steal<py::object>(bytes));
    o = bytes;
  } else if (PyBytes_Check(o)) {
    keep->push_back(py::reinterpret_borrow<py::object>(o));
  } else {
    raise_type_error(std::string(what) + " must be str or bytes, not " + type_name(o));
  }
  return {PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o))};
}

// Runtime output as str: its bytes are the CLI's bytes, and surrogateescape keeps any byte that
// is not UTF-8 recoverable (text.encode("utf-8", "surrogateescape")) instead of failing.
py::str to_str(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// A list of texts: any iterable of str/bytes, but not one str or bytes (a common slip that
// would otherwise translate each character).
std::vector<std::string_view> text_views(const py::handle& texts, std::vector<py::object>* keep) {
  if (PyUnicode_Check(texts.ptr()) || PyBytes_Check(texts.ptr()))
    raise_type_error("texts must be a list of str, not a single " + type_name(texts.ptr()));
  std::vector<std::string_view> views;
  for (py::handle item : py::iter(texts)) views.push_back(utf8_view(item.ptr(), keep, "each text"));
  return views;
}

// Token-id sequences as spans. A 1-D C-contiguous buffer of native int32 (numpy.int32,
// array.array("i")) is read in place: no copy, and it is held (buffer protocol) until the call
// ends. Anything else (lists, other integer dtypes) is copied into int32.
class IdLists {
 public:
  // A list of sequences (`what` names it in messages).
  IdLists(const py::handle& lists, const char* what) {
    if (PyUnicode_Check(lists.ptr()) || PyBytes_Check(lists.ptr()))
      raise_type_error(std::string(what) + " must be a list of token-id sequences, not " + type_name(lists.ptr()));
    for (py::handle item : py::iter(lists)) add(item, std::string("each of ") + what);
    finish();
  }
  // One sequence.
  static IdLists single(const py::handle& ids, const char* what) {
    IdLists one;
    one.add(ids, what);
    one.finish();
    return one;
  }
  std::span<const std::span<const int32_t>> spans() const { return spans_; }

 private:
  IdLists() = default;

  class BufferView {  // a held Py_buffer; released (GIL held) when the IdLists goes
   public:
    explicit BufferView(Py_buffer b) : buffer_(b) {}
    BufferView(BufferView&& o) noexcept : buffer_(o.buffer_) { o.buffer_.obj = nullptr; }
    BufferView& operator=(BufferView&&) = delete;
    ~BufferView() {
      if (buffer_.obj) PyBuffer_Release(&buffer_);
    }
    std::span<const int32_t> span() const {
      return {static_cast<const int32_t*>(buffer_.buf), static_cast<size_t>(buffer_.shape[0])};
    }

   private:
    Py_buffer buffer_;
  };

  void add(const py::handle& item, const std::string& what) {
    PyObject* o = item.ptr();
    if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o))
      raise_type_error(what + " must be a sequence of int, not " + type_name(o));
    if (std::optional<BufferView> view = int32_view(o)) {
      views_.push_back(std::move(*view));
      copy_index_.push_back(std::nullopt);
      return;
    }
    std::vector<int32_t> ids;
    for (py::handle id : py::iter(item)) {
      PyObject* index = PyNumber_Index(id.ptr());  // TypeError for float, str, None
      if (index == nullptr) throw py::error_already_set();
      const long long value = PyLong_AsLongLong(index);
      Py_DECREF(index);
      if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
      if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
        PyErr_Format(PyExc_OverflowError, "token id %lld does not fit int32", value);
        throw py::error_already_set();
      }
      ids.push_back(static_cast<int32_t>(value));
    }
    copy_index_.push_back(copies_.size());
    copies_.push_back(std::move(ids));
  }

  // Spans are taken once copies_ and views_ no longer grow.
  void finish() {
    size_t view = 0;
    for (const std::optional<size_t>& c : copy_index_)
      spans_.push_back(c ? std::span<const int32_t>(copies_[*c]) : views_[view++].span());
  }

  static std::optional<BufferView> int32_view(PyObject* o) {
    if (!PyObject_CheckBuffer(o)) return std::nullopt;
    Py_buffer b;
    if (PyObject_GetBuffer(o, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
      PyErr_Clear();  // e.g. a strided slice: read it element by element instead
      return std::nullopt;
    }
    BufferView view(b);
    const std::string_view format = b.format ? b.format : "B";
    const bool native_int32 = b.itemsize == 4 && (format == "i" || format == "@i" || format == "=i" ||
                                                  (format == "<i" && std::endian::native == std::endian::little));
    if (b.ndim != 1 || !native_int32) return std::nullopt;
    return view;
  }

  std::vector<BufferView> views_;
  std::vector<std::vector<int32_t>> copies_;
  std::vector<std::optional<size_t>> copy_index_;  // per sequence: its index in copies_, or a view
  std::vector<std::span<const int32_t>> spans_;
};

// The UTF-8 bytes of streamed pieces, handed on only as whole characters: a piece may end inside
// a character (a byte-fallback token is one byte), which a str cannot hold.
class Utf8Joiner {
 public:
  // Appends `piece` and returns the longest prefix of what is pending that ends on a character
  // boundary, removing it.
  std::string take_complete(std::string_view piece) {
    pending_.append(piece);
    size_t cut = pending_.size();
    // Walk back over at most 3 continuation bytes to the last lead byte; keep its character if
    // it is not yet whole.
    for (size_t back = 1; back <= 4 && back <= pending_.size(); ++back) {
      const auto c = static_cast<unsigned char>(pending_[pending_.size() - back]);
      if ((c & 0xC0) == 0x80) continue;
      const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      if (need > back) cut = pending_.size() - back;
      break;
    }
    std::string out = pending_.substr(0, cut);
    pending_.erase(0, cut);
    return out;
  }
  std::string take_rest() { return std::exchange(pending_, {}); }

 private:
  std::string pending_;
};

pmt::TranslateOptions search_options(int32_t beam, float alpha, int32_t max_len, int32_t no_repeat_ngram,
                                     bool shortlist, bool copy_numbers, float letter_penalty) {
  pmt::TranslateOptions o;
  o.beam = beam;
  o.alpha = alpha;
  o.max_len = max_len;
  o.no_repeat_ngram = no_repeat_ngram;
  o.shortlist = shortlist;
  o.copy_numbers = copy_numbers;
  o.letter_penalty = letter_penalty;
  return o;
}

class PyTranslator {
 public:
  PyTranslator(const std::string& path, int32_t max_batch, int32_t max_src_len, int32_t max_tgt_len,
               int32_t max_beam, int32_t threads)
      : path_(path) {
    pmt::LoadOptions o;
    o.max_batch = max_batch;
    o.max_src_len = max_src_len;
    o.max_tgt_len = max_tgt_len;
    o.max_beam = max_beam;
    o.threads = threads;
    pmt::Status s;
    {
      py::gil_scoped_release nogil;
      s = pmt::Translator::load(path, o, &translator_);
    }
    if (!s.ok()) raise_status(s);
    text_ = std::make_unique<pmt::TextTranslator>(*translator_);
  }

  // THE per-text entry point: every text of Translator.translate and translate_iterable goes
  // through here. Each text is a paragraph, translated as the translate CLI does (split into
  // sentences, length-sorted batches of max_batch, layout kept, long sentences cut): one
  // TextTranslator call for the whole list, so outputs equal the CLI's on the same lines.
  // Returns list[str], or with `scores` list[tuple[str, float]] (the text's log-probability).
  // The first rejected text raises, its index in the message.
  py::list translate_texts(const py::handle& texts, const pmt::TextOptions& options, bool scores) {
    std::vector<py::object> keep;
    const std::vector<std::string_view> views = text_views(texts, &keep);
    std::unique_lock<std::mutex> lock = run([&] { return text_->translate(views, options); });
    py::list out(views.size());
    for (size_t i = 0; i < views.size(); ++i) {
      const pmt::TextResult& r = text_->results()[i];
      if (!r.status.ok()) raise_status(r.status, "text " + std::to_string(i) + ": ");
      out[i] = scores ? py::object(py::make_tuple(to_str(r.text), r.log_prob)) : py::object(to_str(r.text));
    }
    return out;
  }

  // Streams the translation of one text: `on_piece(str)` for every part as it is decided (the
  // runtime's token callback through TextTranslator), whole characters only.
  void stream_text(const py::handle& text, const pmt::TextOptions& options, const py::function& on_piece) {
    std::vector<py::object> keep;
    const std::string_view view = utf8_view(text.ptr(), &keep, "text");
    struct Sink {
      const py::function* on_piece;
      Utf8Joiner joiner;
      std::optional<py::error_already_set> error;  // the first exception of on_piece
      void emit(const std::string& s) {
        if (s.empty() || error) return;
        try {
          (*on_piece)(to_str(s));
        } catch (py::error_already_set& e) {
          error = std::move(e);  // never through the runtime's frames; raised after the call
        }
      }
    } sink{&on_piece, {}, {}};
    const pmt::TextCallback on_text{[](void* user, const pmt::TextEvent& e) {
                                      auto* s = static_cast<Sink*>(user);
                                      std::string whole = s->joiner.take_complete(e.text);
                                      if (whole.empty()) return;
                                      py::gil_scoped_acquire gil;
                                      s->emit(whole);
                                    },
                                    &sink};
    std::unique_lock<std::mutex> lock = run([&] { return text_->translate({&view, 1}, options, on_text); });
    sink.emit(sink.joiner.take_rest());
    if (sink.error) throw *sink.error;
    if (const pmt::TextResult& r = text_->results()[0]; !r.status.ok()) raise_status(r.status);
  }

  // Sentence-level search on token ids, in chunks of max_batch. Returns list[list[int]], or with
  // `scores` list[tuple[list[int], float]] (log-probability of the output, EOS included).
  py::list translate_ids(const py::handle& sources, const pmt::TranslateOptions& options, bool scores) {
    const IdLists ids(sources, "sources");
    const std::span<const std::span<const int32_t>> all = ids.spans();
    py::list out(all.size());
    const size_t batch = translator_->limits().max_batch;
    // An empty list still makes one (empty) call: the options are checked all the same.
    for (size_t first = 0; first == 0 || first < all.size(); first += batch) {
      const auto chunk = all.subspan(first, std::min(batch, all.size() - first));
      std::unique_lock<std::mutex> lock = run([&] { return translator_->translate_ids(chunk, options); });
      for (size_t k = 0; k < chunk.size(); ++k) {
        const pmt::Translation& r = translator_->results()[k];
        if (!r.status.ok()) raise_status(r.status, "sequence " + std::to_string(first + k) + ": ");
        py::list tokens(r.tokens.size());
        for (size_t j = 0; j < r.tokens.size(); ++j) tokens[j] = py::int_(r.tokens[j]);
        out[first + k] = scores ? py::object(py::make_tuple(tokens, r.log_prob)) : py::object(tokens);
      }
    }
    return out;
  }

  // log P(targets[i] + EOS | sources[i]) (natural log), teacher-forced, in chunks of max_batch.
  py::list score(const py::handle& sources, const py::handle& targets) {
    const IdLists src(sources, "sources"), tgt(targets, "targets");
    if (src.spans().size() != tgt.spans().size()) {
      PyErr_Format(PyExc_ValueError, "%zu sources but %zu targets", src.spans().size(), tgt.spans().size());
      throw py::error_already_set();
    }
    const size_t n = src.spans().size(), batch = translator_->limits().max_batch;
    std::vector<float> log_probs(n);
    for (size_t first = 0; first < n; first += batch) {
      const size_t count = std::min(batch, n - first);
      std::unique_lock<std::mutex> lock = run([&] {
        return translator_->score_ids(src.spans().subspan(first, count), tgt.spans().subspan(first, count),
                                      std::span<float>(log_probs).subspan(first, count));
      });
    }
    py::list out(n);
    for (size_t i = 0; i < n; ++i) out[i] = py::float_(log_probs[i]);
    return out;
  }

  py::list encode(const py::handle& text) const {
    std::vector<py::object> keep;
    const std::string_view view = utf8_view(text.ptr(), &keep, "text");
    std::vector<int32_t> ids;
    if (pmt::Status s = translator_->encode(view, &ids); !s.ok()) raise_status(s);
    py::list out(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) out[i] = py::int_(ids[i]);
    return out;
  }

  py::str decode(const py::handle& ids) const {
    const IdLists one = IdLists::single(ids, "ids");
    std::string text;
    if (pmt::Status s = translator_->decode(one.spans()[0], &text); !s.ok()) raise_status(s);
    return to_str(text);
  }

  py::dict model_info() const {
    const pmt::ModelConfig& c = translator_->config();
    const pmt::LoadOptions& l = translator_->limits();
    py::dict config, limits, info;
    config["vocab_size"] = c.vocab_size;
    config["d_model"] = c.d_model;
    config["n_heads"] = c.n_heads;
    config["d_ff"] = c.d_ff;
    config["n_enc_layers"] = c.n_enc_layers;
    config["n_dec_layers"] = c.n_dec_layers;
    config["max_len"] = c.max_len;
    config["pre_ln"] = c.pre_ln;
    config["ln_eps"] = c.ln_eps;
    config["pad_id"] = c.pad_id;
    config["unk_id"] = c.unk_id;
    config["bos_id"] = c.bos_id;
    config["eos_id"] = c.eos_id;
    limits["max_batch"] = l.max_batch;
    limits["max_src_len"] = l.max_src_len;
    limits["max_tgt_len"] = l.max_tgt_len;
    limits["max_beam"] = l.max_beam;
    limits["threads"] = l.threads;
    info["path"] = path_;
    info["quantized"] = translator_->quantized();
    info["vocab_size"] = c.vocab_size;
    info["arena_bytes"] = translator_->arena_bytes();
    info["default_length_penalty"] = translator_->default_alpha();
    info["default_letter_penalty"] = translator_->default_letter_penalty();
    info["shortlist"] = translator_->has_shortlist();
    info["config"] = config;
    info["limits"] = limits;
    return info;
  }

 private:
  // Runs `call` (a runtime call returning pmt::Status) without the GIL, holding the
  // Translator's mutex, and returns with the GIL back and the mutex still held, so that the
  // caller reads results() before another thread's call replaces them. A failed call raises.
  template <typename Call>
  std::unique_lock<std::mutex> run(Call&& call) {
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    pmt::Status s;
    {
      py::gil_scoped_release nogil;
      lock.lock();
      s = call();
    }
    if (!s.ok()) raise_status(s);
    return lock;
  }

  std::string path_;
  std::unique_ptr<pmt::Translator> translator_;
  std::unique_ptr<pmt::TextTranslator> text_;
  std::mutex mutex_;
};

pmt::TextOptions text_options(int32_t beam, float alpha, int32_t max_len, int32_t no_repeat_ngram, bool shortlist,
                              bool copy_numbers, float letter_penalty, bool split, std::string_view language) {
  return {search_options(beam, alpha, max_len, no_repeat_ngram, shortlist, copy_numbers, letter_penalty), split,
          language};
}

// Creates pocketmt._native.<name>(bases...) with a `code` class attribute, into the module.
PyObject* add_error(py::module_& m, const char* name, pmt::ErrorCode code, py::tuple bases, const char* doc) {
  const std::string qualified = std::string("pocketmt.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (cls == nullptr) throw py::error_already_set();
  py::handle h(cls);
  h.attr("code") = static_cast<int>(code);
  m.add_object(name, h);  // the module holds the reference g_errors relies on
  return cls;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "PocketMT's compiled core; use the `pocketmt` package, not this module.";
  m.attr("__version__") = pmt_version();  // the runtime's, from the top-level project() version

  py::handle base_exception(PyExc_Exception);
  PyObject* error = add_error(m, "Error", pmt::ErrorCode::kOk, py::make_tuple(base_exception),
                              "Base class of every PocketMT error; `code` is the runtime's ErrorCode.");
  py::handle e(error);
  g_errors[0] = error;
  g_errors[1] = add_error(m, "InvalidArgumentError", pmt::ErrorCode::kInvalidArgument,
                          py::make_tuple(e, py::handle(PyExc_ValueError)), "An option outside its documented range.");
  g_errors[2] = add_error(m, "ModelNotFoundError", pmt::ErrorCode::kNotFound,
                          py::make_tuple(e, py::handle(PyExc_FileNotFoundError)),
                          "The model file does not exist or cannot be read.");
  g_errors[3] = add_error(m, "BadModelError", pmt::ErrorCode::kBadModel, py::make_tuple(e),
                          "The file is not a valid PocketMT model (truncated, corrupt, wrong format).");
  g_errors[4] = add_error(m, "LimitExceededError", pmt::ErrorCode::kLimitExceeded,
                          py::make_tuple(e, py::handle(PyExc_ValueError)),
                          "Input beyond a limit fixed at load (max_src_len, max_tgt_len).");
  g_errors[5] = add_error(m, "InvalidUtf8Error", pmt::ErrorCode::kInvalidUtf8,
                          py::make_tuple(e, py::handle(PyExc_ValueError)), "A text that is not valid UTF-8.");
  g_errors[6] = add_error(m, "OutOfMemoryError", pmt::ErrorCode::kOutOfMemory,
                          py::make_tuple(e, py::handle(PyExc_MemoryError)),
                          "The arena or XNNPACK's weights could not be allocated.");
  g_errors[7] = add_error(m, "BackendError", pmt::ErrorCode::kBackend, py::make_tuple(e, py::handle(PyExc_RuntimeError)),
                          "XNNPACK failed (e.g. an unsupported CPU).");

  py::class_<PyTranslator>(m, "Translator", "A loaded model; see pocketmt.Translator.")
      .def(py::init<const std::string&, int32_t, int32_t, int32_t, int32_t, int32_t>(), py::arg("path"),
           py::arg("max_batch"), py::arg("max_src_len"), py::arg("max_tgt_len"), py::arg("max_beam"),
           py::arg("threads"), "Loads and verifies the model; every allocation happens here.")
      .def(
          "translate_texts",
          [](PyTranslator& t, const py::handle& texts, int32_t beam, float alpha, int32_t max_len,
             int32_t no_repeat_ngram, bool shortlist, bool copy_numbers, float letter_penalty, bool split,
             const std::string& language,
             bool scores) {
            return t.translate_texts(
                texts, text_options(beam, alpha, max_len, no_repeat_ngram, shortlist, copy_numbers, letter_penalty, split,
                             language),
                scores);
          },
          py::arg("texts"), py::arg("beam"), py::arg("alpha"), py::arg("max_len"), py::arg("no_repeat_ngram"),
          py::arg("shortlist"), py::arg("copy_numbers"), py::arg("letter_penalty"), py::arg("split"), py::arg("language"), py::arg("scores"),
          "Translates paragraphs (list of str/bytes) as the translate CLI does; list[str] or "
          "list[tuple[str, float]].")
      .def(
          "stream_text",
          [](PyTranslator& t, const py::handle& text, int32_t beam, float alpha, int32_t max_len,
             int32_t no_repeat_ngram, bool shortlist, bool copy_numbers, float letter_penalty, bool split,
             const std::string& language,
             const py::function& on_piece) {
            t.stream_text(
                text, text_options(beam, alpha, max_len, no_repeat_ngram, shortlist, copy_numbers, letter_penalty, split,
                             language),
                on_piece);
          },
          py::arg("text"), py::arg("beam"), py::arg("alpha"), py::arg("max_len"), py::arg("no_repeat_ngram"),
          py::arg("shortlist"), py::arg("copy_numbers"), py::arg("letter_penalty"), py::arg("split"), py::arg("language"), py::arg("on_piece"),
          "Translates one text, calling on_piece(str) for each part as soon as it is final.")
      .def(
          "translate_ids",
          [](PyTranslator& t, const py::handle& sources, int32_t beam, float alpha, int32_t max_len,
             int32_t no_repeat_ngram, bool shortlist, bool copy_numbers, float letter_penalty, bool scores) {
            return t.translate_ids(
                sources, search_options(beam, alpha, max_len, no_repeat_ngram, shortlist, copy_numbers, letter_penalty),
                scores);
          },
          py::arg("sources"), py::arg("beam"), py::arg("alpha"), py::arg("max_len"), py::arg("no_repeat_ngram"),
          py::arg("shortlist"), py::arg("copy_numbers"), py::arg("letter_penalty"), py::arg("scores"),
          "Sentence-level search on token ids (EOS appended by the runtime).")
      .def("score", &PyTranslator::score, py::arg("sources"), py::arg("targets"),
           "log P(target + EOS | source) per pair, natural log.")
      .def("encode", &PyTranslator::encode, py::arg("text"), "The model's SentencePiece ids of a text.")
      .def("decode", &PyTranslator::decode, py::arg("ids"), "The text of token ids.")
      .def("model_info", &PyTranslator::model_info, "Config, quantization, arena size and load limits.");
}
