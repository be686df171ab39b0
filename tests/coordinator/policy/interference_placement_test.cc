#include "policy/interference_placement.h"

#include <gtest/gtest.h>
