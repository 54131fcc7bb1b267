"""A user's own folder of unlabelled contracts and the questions written blind about it."""
