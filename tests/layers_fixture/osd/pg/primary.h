// Fixture for the layers test (never compiled).
#pragma once
