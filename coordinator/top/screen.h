// The terminal, through ncurses: paints the lines table_layout produced and
// turns keys into Commands. Nothing else here decides what is shown.
#ifndef IASHIM_COORDINATOR_TOP_SCREEN_H_
#define IASHIM_COORDINATOR_TOP_SCREEN_H_

#include <memory>
#include <string>
#include <vector>

#include "coordinator/top/table_layout.h"
#include "coordinator/top/ui_state.h"

// ncurses' SCREEN, declared here so that curses.h (whose macros such as
// `timeout` and `refresh` collide with ordinary names) stays inside screen.cc.
struct screen;

namespace iashim::top {

class Screen {
 public:
  // Takes over the terminal on stdin/stdout. nullptr, with the reason in
  // `*error`, when they are not a terminal ncurses can drive.
  static std::unique_ptr<Screen> Open(std::string* error);

  // Gives the terminal back as it was.
  ~Screen();
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  int width() const;
  int height() const;

  void Draw(const std::vector<Line>& lines);

  // The commands for the keys typed since the last call; never blocks.
  // A terminal resize comes as Command::kRedraw (after width() and height()
  // have taken the new size).
  std::vector<Command> ReadCommands();

 private:
  explicit Screen(struct ::screen* term) : term_(term) {}

  struct ::screen* term_;
  bool colors_ = false;
};

}  // namespace iashim::top

#endif  // IASHIM_COORDINATOR_TOP_SCREEN_H_
