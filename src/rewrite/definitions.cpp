// The functions and classes of a module, for the object mender (see definitions.h).
#include "rewrite/definitions.h"

#include <string_view>

#include "rewrite/edits.h"
#include "rewrite/skeleton.h"

namespace graphmend::rewrite {
namespace {

// Whether an edit changes text inside [begin, end): an insertion right at `begin` (the
// runtime import before a module's first def) lies before the definition, not in it.
bool touched_inside(const std::vector<TextEdit>& edits, uint32_t begin, uint32_t end) {
  for (const TextEdit& edit : edits) {
    bool insertion = edit.begin == edit.end;
    if (insertion ? (begin < edit.begin && edit.begin < end)
                  : (edit.begin < end && edit.end > begin)) {
      return true;
    }
  }
  return false;
}

// Maps original byte offsets to the mended text's.
class OffsetMap {
 public:
  OffsetMap(uint32_t original_size, const std::vector<TextEdit>& edits)
      : segments_(segments_of(original_size, edits)) {}

  // Where the text starting at `offset` starts in the mended text (after an insertion there).
  uint32_t begin(uint32_t offset) const {
    for (const Segment& s : segments_) {
      uint32_t length = s.mended_end - s.mended_begin;
      if (s.edit == nullptr && s.original_begin <= offset && offset < s.original_begin + length) {
        return s.mended_begin + (offset - s.original_begin);
      }
    }
    return segments_.empty() ? offset : segments_.back().mended_end;
  }

  // Where the text ending at `offset` ends in the mended text (after a replacement ending there).
  uint32_t end(uint32_t offset) const {
    for (const Segment& s : segments_) {
      if (s.edit != nullptr) {
        if (s.edit->begin < offset && offset <= s.edit->end) return s.mended_end;
        continue;
      }
      uint32_t length = s.mended_end - s.mended_begin;
      if (s.original_begin < offset && offset <= s.original_begin + length) {
        return s.mended_begin + (offset - s.original_begin);
      }
    }
    return segments_.empty() ? offset : segments_.back().mended_end;
  }

 private:
  std::vector<Segment> segments_;
};

std::vector<std::string> parameter_names(const ast::arguments* args) {
  std::vector<std::string> names;
  if (args == nullptr) return names;
  for (const ast::arg* a : args->posonlyargs) names.emplace_back(a->arg);
  for (const ast::arg* a : args->args) names.emplace_back(a->arg);
  for (const ast::arg* a : args->kwonlyargs) names.emplace_back(a->arg);
  return names;
}

class Lister {
 public:
  Lister(const SourceText& original, const std::vector<TextEdit>& edits, const SourceText& mended)
      : original_(original), edits_(edits), mended_(mended), offsets_(original.size(), edits) {}

  // The statements of one body: `prefix` is the qualified name prefix of what they define.
  void visit(const ast::Seq<ast::stmt*>& body, const std::string& prefix,
             const std::string& class_name) {
    for (const ast::stmt* statement : body) visit(statement, prefix, class_name);
  }

  std::vector<Definition> found;

 private:
  void visit(const ast::stmt* statement, const std::string& prefix, const std::string& class_name) {
    if (const auto* f = ast::as<ast::FunctionDef>(statement)) {
      function(statement, f->name, f->args, f->body, prefix, class_name);
    } else if (const auto* f = ast::as<ast::AsyncFunctionDef>(statement)) {
      function(statement, f->name, f->args, f->body, prefix, class_name);
    } else if (const auto* c = ast::as<ast::ClassDef>(statement)) {
      std::string name = prefix + std::string(c->name);
      add(statement, name, class_name, true, {});
      visit(c->body, name + ".", std::string(c->name));
    } else {
      ast::for_each_block(
          statement, [&](const ast::Seq<ast::stmt*>& inner) { visit(inner, prefix, class_name); });
    }
  }

  void function(const ast::stmt* statement, std::string_view own_name, const ast::arguments* args,
                const ast::Seq<ast::stmt*>& body, const std::string& prefix,
                const std::string& class_name) {
    std::string name = prefix + std::string(own_name);
    add(statement, name, class_name, false, parameter_names(args));
    visit(body, name + ".<locals>.", class_name);
  }

  void add(const ast::stmt* statement, std::string qualname, const std::string& class_name,
           bool is_class, std::vector<std::string> params) {
    uint32_t begin = statement_start(statement);
    uint32_t end = statement->end;
    Definition d;
    d.is_class = is_class;
    d.qualname = std::move(qualname);
    d.class_name = class_name;
    d.first_line = original_.line_col(begin).line;
    d.last_line = original_.line_col(end).line;
    d.mended_first_line = mended_.line_col(offsets_.begin(begin)).line;
    d.mended_last_line = mended_.line_col(offsets_.end(end)).line;
    d.touched = touched_inside(edits_, begin, end);
    d.params = std::move(params);
    found.push_back(std::move(d));
  }

  const SourceText& original_;
  const std::vector<TextEdit>& edits_;
  const SourceText& mended_;
  OffsetMap offsets_;
};

}  // namespace

std::vector<Definition> list_definitions(const SourceText& original, const ast::Module& module,
                                         const std::vector<TextEdit>& edits,
                                         const SourceText& mended) {
  Lister lister(original, edits, mended);
  lister.visit(module.body, "", "");
  return std::move(lister.found);
}

}  // namespace graphmend::rewrite
